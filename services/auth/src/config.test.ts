import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '@kg/config';
import { authConfigSchema } from './config';

const base = {
  DATABASE_URL: 'postgres://kg@db/kg',
  INTERNAL_SIGNING_KEY: JSON.stringify({ kty: 'OKP', crv: 'Ed25519', x: 'x'.repeat(43), d: 'd'.repeat(43) }),
  INTERNAL_PUBLIC_KEYS: JSON.stringify({ gateway: { kty: 'OKP', crv: 'Ed25519', x: 'g'.repeat(43) } }),
  AUTH_SIGNING_KEY: '{"kty":"OKP"}',
  API_KEY_PEPPER: 'p'.repeat(32),
  KAFKA_BROKERS: 'kafka:9092',
};
const problems = (env: Record<string, string>) => {
  try {
    loadConfig('auth', authConfigSchema, env);
    return [];
  } catch (e) {
    expect(e).toBeInstanceOf(ConfigError);
    return (e as ConfigError).problems;
  }
};

describe('authConfigSchema', () => {
  it('applies defaults', () => {
    expect(loadConfig('auth', authConfigSchema, { ...base, SMTP_URL: 'smtp://mail:25' })).toMatchObject({
      PORT: 3001,
      MAIL_TRANSPORT: 'smtp',
      MAIL_FROM: 'Knowledge Graph <no-reply@localhost>',
      PUBLIC_URL: 'http://localhost:8080',
    });
  });

  it('requires SMTP_URL for smtp and OUTBOX_DIR for outbox', () => {
    expect(problems(base)).toEqual([expect.stringMatching(/^SMTP_URL: required when MAIL_TRANSPORT=smtp/)]);
    expect(problems({ ...base, MAIL_TRANSPORT: 'outbox' })).toEqual([
      expect.stringMatching(/^OUTBOX_DIR: required when MAIL_TRANSPORT=outbox/),
    ]);
    expect(problems({ ...base, MAIL_TRANSPORT: 'outbox', OUTBOX_DIR: '/tmp/outbox' })).toEqual([]);
  });

  it('rejects a short pepper, a non-SMTP URL, and missing secrets without echoing values', () => {
    const found = problems({ ...base, API_KEY_PEPPER: 'short-pepper', SMTP_URL: 'http://mail' });
    expect(found.some((p) => p.startsWith('API_KEY_PEPPER'))).toBe(true);
    expect(found.some((p) => p.startsWith('SMTP_URL'))).toBe(true);
    expect(found.join('\n')).not.toContain('short-pepper');
    expect(problems({ DATABASE_URL: base.DATABASE_URL }).map((p) => p.split(':')[0])).toEqual(
      expect.arrayContaining(['INTERNAL_SIGNING_KEY', 'INTERNAL_PUBLIC_KEYS', 'AUTH_SIGNING_KEY', 'API_KEY_PEPPER']),
    );
  });
});
