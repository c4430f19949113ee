import { describe, expect, it } from 'vitest';
import { createJwksCache, KeysUnavailableError } from './jwks-cache';

describe('jwks cache', () => {
  it('tells a failure to fetch the keys apart from a bad token', async () => {
    const cache = createJwksCache(() => Promise.reject(new Error('auth service down')));
    await expect(cache.resolver({ alg: 'EdDSA', kid: 'k' }, {} as never)).rejects.toBeInstanceOf(KeysUnavailableError);
  });

  it('rejects a key id it does not know with a plain key error once the set is fresh', async () => {
    const cache = createJwksCache(async () => ({ keys: [] }));
    const err = await Promise.resolve(cache.resolver({ alg: 'EdDSA', kid: 'k' }, {} as never)).catch((e: unknown) => e);
    expect(err).not.toBeInstanceOf(KeysUnavailableError);
    expect(err).toBeInstanceOf(Error);
  });
});
