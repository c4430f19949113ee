import { describe, expect, it } from 'vitest';
import { createMemoryKv } from './memory';

describe('memory kv', () => {
  it('stores values until their ttl', async () => {
    const kv = createMemoryKv();
    await kv.set('a', '1', 60);
    expect(await kv.get('a')).toBe('1');
    await kv.set('b', '2', 0);
    expect(await kv.get('b')).toBeNull();
    await kv.del('a');
    expect(await kv.get('a')).toBeNull();
    await kv.close();
  });

  it('take reads a value once: of two concurrent takes only one gets it', async () => {
    const kv = createMemoryKv();
    await kv.set('once', 'v', 60);
    const [a, b] = await Promise.all([kv.take('once'), kv.take('once')]);
    expect([a, b].sort()).toEqual(['v', null].sort());
    expect(await kv.get('once')).toBeNull();
    await kv.set('gone', 'v', 0);
    expect(await kv.take('gone')).toBeNull();
    await kv.close();
  });

  it('limits per key and reports remaining and reset', async () => {
    const kv = createMemoryKv();
    const limiter = kv.rateLimiter({ name: 't', points: 2, durationSeconds: 60 });
    expect(await limiter.consume('k')).toMatchObject({ allowed: true, limit: 2, remaining: 1 });
    expect(await limiter.consume('k')).toMatchObject({ allowed: true, remaining: 0 });
    const third = await limiter.consume('k');
    expect(third.allowed).toBe(false);
    expect(third.resetSeconds).toBeGreaterThan(0);
    expect((await limiter.consume('other')).allowed).toBe(true);
    await kv.close();
  });
});
