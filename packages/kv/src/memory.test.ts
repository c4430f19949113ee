import { afterAll, describe, expect, it } from 'vitest';
import { kvContract } from './contract-suite';
import { createMemoryKv } from './memory';

const shared = createMemoryKv();
afterAll(() => shared.close());
kvContract('memory', () => shared);

describe('memory kv', () => {
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
