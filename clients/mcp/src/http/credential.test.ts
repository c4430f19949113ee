import { describe, expect, it } from 'vitest';
import { parseAuthorization } from './credential.ts';

const KEY = 'key_01jd8x6q1bf5r3v2m9w7k4t0za.' + 'A'.repeat(43);
const jwt = (claims: object) =>
  ['{"alg":"EdDSA"}', JSON.stringify(claims)].map((p) => Buffer.from(p).toString('base64url')).join('.') + '.sig';

describe('parseAuthorization', () => {
  it('passes bearer tokens and API keys through, with their scheme', () => {
    expect(parseAuthorization(`ApiKey ${KEY}`)).toEqual({ header: `ApiKey ${KEY}`, kind: 'api_key', expiresAt: null });
    const token = jwt({ exp: 1_900_000_000 });
    expect(parseAuthorization(`bearer ${token}`)).toEqual({
      header: `Bearer ${token}`,
      kind: 'bearer',
      expiresAt: 1_900_000_000_000,
    });
  });

  it('sends an API key given as a bearer token as ApiKey', () => {
    expect(parseAuthorization(`Bearer ${KEY}`)).toMatchObject({ header: `ApiKey ${KEY}`, kind: 'api_key' });
  });

  it('refuses a missing, malformed or oversized header', () => {
    for (const h of [undefined, '', 'Bearer', 'Basic abc', `Bearer ${KEY} extra`, ['Bearer a', 'Bearer b']])
      expect(parseAuthorization(h as string | undefined)).toBeNull();
    expect(parseAuthorization(`Bearer ${'a'.repeat(5000)}`)).toBeNull();
  });

  it('reads no expiry from a token without a readable exp', () => {
    expect(parseAuthorization('Bearer opaque')?.expiresAt).toBeNull();
    expect(parseAuthorization(`Bearer ${jwt({ sub: 'x' })}`)?.expiresAt).toBeNull();
  });
});
