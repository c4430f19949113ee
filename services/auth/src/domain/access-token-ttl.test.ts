import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAuthRig, type AuthRig } from '../testing';

const lifetime = (token: string) => {
  const p = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as { iat: number; exp: number };
  return p.exp - p.iat;
};

/** The default (900 s) is checked in magic-link.test.ts. */
describe('ACCESS_TOKEN_TTL_SECONDS', () => {
  let rig: AuthRig;
  beforeAll(async () => {
    rig = await createAuthRig({ accessTokenTtlSeconds: 5 });
  }, 60_000);
  afterAll(() => rig.close());

  it('sets expires_in and the token expiry, at sign-in and at every refresh', async () => {
    const pair = await rig.signIn('short@example.com');
    expect(pair.expires_in).toBe(5);
    expect(lifetime(pair.access_token)).toBe(5);
    const next = await rig.anon.tokens.refresh({ refresh_token: pair.refresh_token });
    expect(next.expires_in).toBe(5);
    expect(lifetime(next.access_token)).toBe(5);
  });
});
