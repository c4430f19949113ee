import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ConfigError, loadConfig } from './load';
import { internalPublicKeys, internalSigningKey } from './fields';

const schema = z.object({ INTERNAL_SIGNING_KEY: internalSigningKey(), INTERNAL_PUBLIC_KEYS: internalPublicKeys() });
const pub = (c: string) => ({ kty: 'OKP', crv: 'Ed25519', x: c.repeat(43) });
const priv = { ...pub('x'), d: 'S3cr3tPrivatePartOfTheKey_0123456789abcdefg' };

function problems(env: Record<string, string>): string[] {
  try {
    loadConfig('graph', schema, env);
    return [];
  } catch (e) {
    expect(e).toBeInstanceOf(ConfigError);
    return (e as ConfigError).problems;
  }
}

describe('internal key settings', () => {
  it('parses the private key and a name → key map (one key or several, for rotation)', () => {
    const cfg = loadConfig('graph', schema, {
      INTERNAL_SIGNING_KEY: JSON.stringify(priv),
      INTERNAL_PUBLIC_KEYS: JSON.stringify({ gateway: pub('g'), 'ingest-worker': [pub('a'), pub('b')] }),
    });
    expect(cfg.INTERNAL_SIGNING_KEY).toEqual(priv);
    expect(cfg.INTERNAL_PUBLIC_KEYS).toEqual({ gateway: [pub('g')], 'ingest-worker': [pub('a'), pub('b')] });
  });

  it('accepts a JWKS whose kid names the service', () => {
    const cfg = loadConfig('graph', schema, {
      INTERNAL_SIGNING_KEY: JSON.stringify(priv),
      INTERNAL_PUBLIC_KEYS: JSON.stringify({
        keys: [
          { ...pub('g'), kid: 'gateway' },
          { ...pub('h'), kid: 'gateway' },
        ],
      }),
    });
    expect(cfg.INTERNAL_PUBLIC_KEYS).toEqual({
      gateway: [
        { ...pub('g'), kid: 'gateway' },
        { ...pub('h'), kid: 'gateway' },
      ],
    });
  });

  it('names what is wrong and never echoes key material', () => {
    const found = problems({
      INTERNAL_SIGNING_KEY: JSON.stringify({ ...priv, d: 'short-S3cr3t' }),
      INTERNAL_PUBLIC_KEYS: JSON.stringify({ gateway: priv }),
    });
    expect(found).toEqual([
      expect.stringMatching(/^INTERNAL_SIGNING_KEY\.d: must be 32 bytes in base64url/),
      expect.stringMatching(/^INTERNAL_PUBLIC_KEYS\.gateway\.0\.d: holds a private key/),
    ]);
    const notJson = problems({ INTERNAL_SIGNING_KEY: '{"d":"S3cr3t', INTERNAL_PUBLIC_KEYS: 'S3cr3t' });
    expect(notJson).toEqual([
      expect.stringMatching(/^INTERNAL_SIGNING_KEY: must be JSON \(a private Ed25519 JWK\)/),
      expect.stringMatching(/^INTERNAL_PUBLIC_KEYS: must be JSON/),
    ]);
    expect([...found, ...notJson].join('\n')).not.toMatch(/S3cr3t/);
    expect(problems({}).map((p) => p.split(':')[0])).toEqual(['INTERNAL_SIGNING_KEY', 'INTERNAL_PUBLIC_KEYS']);
    expect(problems({ INTERNAL_SIGNING_KEY: JSON.stringify(priv), INTERNAL_PUBLIC_KEYS: '{}' })).toEqual([
      expect.stringMatching(/^INTERNAL_PUBLIC_KEYS: names no service/),
    ]);
  });
});
