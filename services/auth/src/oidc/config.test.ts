import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { loadConfig } from '@kg/config';
import { checkOidc, oidcEnv, oidcSettings } from './config';

const schema = z.object(oidcEnv).superRefine(checkOidc);
const full = { OIDC_ISSUER: 'https://idp.example.com', OIDC_CLIENT_ID: 'kg', OIDC_CLIENT_SECRET: 'top-secret-value' };

describe('OIDC_* settings (all three or none)', () => {
  it('none: OpenID sign-in off', () => {
    expect(oidcSettings(loadConfig('auth', schema, {}))).toBeNull();
  });

  it('all three: on', () => {
    expect(oidcSettings(loadConfig('auth', schema, full))).toEqual({
      issuer: 'https://idp.example.com',
      clientId: 'kg',
      clientSecret: 'top-secret-value',
    });
  });

  it('some: refused, naming the missing ones and never echoing the secret', () => {
    expect(() => loadConfig('auth', schema, { OIDC_ISSUER: full.OIDC_ISSUER })).toThrow(
      /OIDC_CLIENT_ID[\s\S]*OIDC_CLIENT_SECRET/,
    );
    try {
      loadConfig('auth', schema, { OIDC_CLIENT_SECRET: full.OIDC_CLIENT_SECRET });
      expect.unreachable();
    } catch (err) {
      expect(String(err)).toMatch(/OIDC_ISSUER/);
      expect(String(err)).not.toContain(full.OIDC_CLIENT_SECRET);
    }
  });

  it('the issuer is https, or http on a loopback address only', () => {
    for (const issuer of ['http://127.0.0.1:4000', 'http://localhost:4000/realms/kg', 'https://idp.example.com/tenant'])
      expect(loadConfig('auth', schema, { ...full, OIDC_ISSUER: issuer }).OIDC_ISSUER).toBe(issuer);
    for (const issuer of ['http://idp.example.com', 'ftp://idp.example.com', 'not a url'])
      expect(() => loadConfig('auth', schema, { ...full, OIDC_ISSUER: issuer }), issuer).toThrow(/OIDC_ISSUER/);
  });
});
