import { describe, expect, it } from 'vitest';
import type { Identity } from '@kg/contracts';
import { ApiKeyCache } from './api-key-cache';

const TENANT = 'tnt_01jd8x6q1bf5r3v2m9w7k4t0za';
const identity = (keyId: string): Identity => ({
  tenantId: TENANT,
  subject: 'usr_1',
  credential: { kind: 'api_key', id: keyId },
  email: null,
});

function remote() {
  const calls: string[] = [];
  const verify = async (raw: string) => {
    calls.push(raw);
    await new Promise((r) => setTimeout(r, 5));
    if (raw.endsWith('.bad')) throw new Error('401');
    return identity(raw.split('.')[0]!);
  };
  return { calls, verify };
}

describe('ApiKeyCache', () => {
  it('answers a verified key from memory until its TTL has passed, then asks again', async () => {
    let now = 0;
    const cache = new ApiKeyCache({ ttlSeconds: 30, maxEntries: 10, now: () => now });
    const { calls, verify } = remote();
    await cache.verify('key_a.s1', verify);
    now = 29_999;
    expect(await cache.verify('key_a.s1', verify)).toEqual(identity('key_a'));
    expect(calls).toHaveLength(1);
    now = 30_000;
    await cache.verify('key_a.s1', verify);
    expect(calls).toHaveLength(2);
  });

  it('never answers another secret of the same key id from the cache, and keeps no failure', async () => {
    const cache = new ApiKeyCache({ ttlSeconds: 30, maxEntries: 10 });
    const { calls, verify } = remote();
    await cache.verify('key_a.s1', verify);
    await expect(cache.verify('key_a.bad', verify)).rejects.toThrow('401');
    await expect(cache.verify('key_a.bad', verify)).rejects.toThrow('401');
    expect(calls).toEqual(['key_a.s1', 'key_a.bad', 'key_a.bad']);
  });

  it('drops a revoked key at once', async () => {
    const cache = new ApiKeyCache({ ttlSeconds: 3600, maxEntries: 10 });
    const { calls, verify } = remote();
    await cache.verify('key_a.s1', verify);
    await cache.verify('key_b.s1', verify);
    cache.revoke('key_a');
    await cache.verify('key_a.s1', verify);
    await cache.verify('key_b.s1', verify);
    expect(calls).toEqual(['key_a.s1', 'key_b.s1', 'key_a.s1']);
  });

  it('caches nothing while the revocation feed is not live, and forgets what it held when the feed stops', async () => {
    const cache = new ApiKeyCache({ ttlSeconds: 3600, maxEntries: 10 });
    const { calls, verify } = remote();
    // A revocation made now could not reach this cache: every request asks the auth service.
    cache.setLive(false);
    await cache.verify('key_a.s1', verify);
    await cache.verify('key_a.s1', verify);
    expect(calls).toEqual(['key_a.s1', 'key_a.s1']);
    cache.setLive(true);
    await cache.verify('key_a.s1', verify);
    await cache.verify('key_a.s1', verify);
    expect(calls).toHaveLength(3);
    // The feed rejoins (a rebalance, a crash): what was cached is dropped, nothing is kept meanwhile.
    cache.setLive(false);
    await cache.verify('key_a.s1', verify);
    expect(calls).toHaveLength(4);
    expect(cache.size).toBe(0);
  });

  it('does not cache a verification that was in flight when the feed stopped being live', async () => {
    const cache = new ApiKeyCache({ ttlSeconds: 3600, maxEntries: 10 });
    const { calls, verify } = remote();
    const pending = cache.verify('key_a.s1', verify);
    cache.setLive(false);
    cache.setLive(true);
    await pending;
    await cache.verify('key_a.s1', verify);
    expect(calls).toHaveLength(2);
  });

  it('does not cache a verification that was in flight when a revocation arrived', async () => {
    const cache = new ApiKeyCache({ ttlSeconds: 3600, maxEntries: 10 });
    const { calls, verify } = remote();
    const pending = cache.verify('key_a.s1', verify);
    cache.revoke('key_a');
    await pending;
    await cache.verify('key_a.s1', verify);
    expect(calls).toHaveLength(2);
  });

  it('shares one call between concurrent misses of a key', async () => {
    const cache = new ApiKeyCache({ ttlSeconds: 30, maxEntries: 10 });
    const { calls, verify } = remote();
    await Promise.all(Array.from({ length: 8 }, () => cache.verify('key_a.s1', verify)));
    expect(calls).toHaveLength(1);
  });

  it('holds at most maxEntries keys, the least recently used going first', async () => {
    const cache = new ApiKeyCache({ ttlSeconds: 30, maxEntries: 2 });
    const { calls, verify } = remote();
    await cache.verify('key_a.s', verify);
    await cache.verify('key_b.s', verify);
    await cache.verify('key_a.s', verify); // a is now the most recent
    await cache.verify('key_c.s', verify); // evicts b
    expect(cache.size).toBe(2);
    await cache.verify('key_a.s', verify);
    expect(calls).toEqual(['key_a.s', 'key_b.s', 'key_c.s']);
    await cache.verify('key_b.s', verify);
    expect(calls).toHaveLength(4);
  });

  it('asks every time with a TTL of 0', async () => {
    const cache = new ApiKeyCache({ ttlSeconds: 0, maxEntries: 10 });
    const { calls, verify } = remote();
    await cache.verify('key_a.s', verify);
    await cache.verify('key_a.s', verify);
    expect(calls).toHaveLength(2);
  });
});
