import { mkdtempSync, readdirSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createLocalJWKSet, exportJWK, generateKeyPair } from 'jose';
import { verifyAccessToken } from '@kg/tokens';
import { publicKeySet, signAccessToken } from '../domain/access-token';
import { loadOrCreateKeyMaterial } from './files';
import { keyMaterialFromSecrets } from './material';

const freshDir = () => mkdtempSync(path.join(tmpdir(), 'kg-keys-'));
const PEPPER = 'p'.repeat(32);
const user = { id: 'usr_01jd8x6q1bf5r3v2m9w7k4t0za', tenantId: 'tnt_01jd8x6q1bf5r3v2m9w7k4t0za' };

describe('loadOrCreateKeyMaterial', () => {
  it('generates key and pepper once, keeps them in <dataDir>/keys with mode 0600, and reuses them', async () => {
    const dir = freshDir();
    const a = await loadOrCreateKeyMaterial(dir);
    const b = await loadOrCreateKeyMaterial(dir);
    expect(b.kid).toBe(a.kid);
    expect(b.pepper).toBe(a.pepper);
    expect(b.publicJwk).toEqual(a.publicJwk);
    expect(Buffer.from(a.pepper, 'base64url')).toHaveLength(32);
    const keysDir = path.join(dir, 'keys');
    expect(statSync(keysDir).mode & 0o777).toBe(0o700);
    const files = readdirSync(keysDir);
    expect(files.sort()).toEqual(['api-key-pepper', 'auth-signing-key.jwk.json']);
    for (const f of files) expect(statSync(path.join(keysDir, f)).mode & 0o777).toBe(0o600);
    const token = await signAccessToken(a, user, new Date());
    expect(await verifyAccessToken(token, createLocalJWKSet(publicKeySet(b)))).toMatchObject({
      tenantId: user.tenantId,
      subject: user.id,
    });
  });

  it('agrees on one key when several starts race on an empty directory', async () => {
    const dir = freshDir();
    const all = await Promise.all([1, 2, 3, 4].map(() => loadOrCreateKeyMaterial(dir)));
    expect(new Set(all.map((k) => k.kid)).size).toBe(1);
    expect(new Set(all.map((k) => k.pepper)).size).toBe(1);
    expect(readdirSync(path.join(dir, 'keys'))).toHaveLength(2);
  });

  it('publishes only the public half', async () => {
    const keys = await loadOrCreateKeyMaterial(freshDir());
    expect(Object.keys(keys.publicJwk).sort()).toEqual(['alg', 'crv', 'kid', 'kty', 'use', 'x']);
  });
});

describe('keyMaterialFromSecrets', () => {
  it('accepts a private Ed25519 JWK; without a kid it uses the key thumbprint', async () => {
    const { privateKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519', extractable: true });
    const jwk = await exportJWK(privateKey);
    const keys = await keyMaterialFromSecrets(JSON.stringify(jwk), PEPPER);
    expect(keys.kid).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(keys.publicJwk).toMatchObject({ kid: keys.kid, x: jwk.x, alg: 'EdDSA', use: 'sig' });
    const named = await keyMaterialFromSecrets(JSON.stringify({ ...jwk, kid: 'k-1', alg: 'EdDSA' }), PEPPER);
    expect(named.kid).toBe('k-1');
  });

  it('rejects bad keys without echoing them', async () => {
    const { privateKey, publicKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519', extractable: true });
    const secretText = 'super-secret-not-json';
    const notJson = await keyMaterialFromSecrets(secretText, PEPPER).catch((e: Error) => e.message);
    expect(notJson).toMatch(/not valid JSON/);
    expect(notJson).not.toContain(secretText);
    await expect(keyMaterialFromSecrets(JSON.stringify(await exportJWK(publicKey)), PEPPER)).rejects.toThrow(/private/);
    const jwk = JSON.stringify(await exportJWK(privateKey));
    await expect(keyMaterialFromSecrets(jwk, 'short')).rejects.toThrow(/pepper/);
    const message = await keyMaterialFromSecrets('{"kty":"RSA","d":"zzz-secret"}', PEPPER).catch(
      (e: Error) => e.message,
    );
    expect(message).not.toContain('zzz-secret');
  });
});
