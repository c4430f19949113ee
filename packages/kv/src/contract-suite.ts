import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { KvStore } from './port';

/**
 * What every kv adapter must do, run against each of them (memory here, Redis in
 * redis.redis.test.ts): values and their ttl, one-use takes and set-if-absent under
 * concurrent callers. Keys are fresh per test, so a shared server needs no cleanup.
 */
export function kvContract(name: string, kv: () => KvStore) {
  const fresh = () => `contract:${randomUUID()}`;

  describe(`kv contract (${name})`, () => {
    it('stores values until their ttl; a ttl of 0 stores nothing', async () => {
      const [a, b] = [fresh(), fresh()];
      await kv().set(a, '1', 60);
      expect(await kv().get(a)).toBe('1');
      await kv().set(b, '2', 0);
      expect(await kv().get(b)).toBeNull();
      await kv().del(a);
      expect(await kv().get(a)).toBeNull();
    });

    it('take reads a value once: of two concurrent takes only one gets it', async () => {
      const once = fresh();
      await kv().set(once, 'v', 60);
      const [a, b] = await Promise.all([kv().take(once), kv().take(once)]);
      expect([a, b].sort()).toEqual(['v', null].sort());
      expect(await kv().get(once)).toBeNull();
      expect(await kv().take(fresh())).toBeNull();
    });

    it('setIfAbsent keeps the first value: concurrent callers all get it', async () => {
      const key = fresh();
      const answers = await Promise.all(['a', 'b', 'c', 'd'].map((v) => kv().setIfAbsent(key, v, 60)));
      expect(new Set(answers).size).toBe(1);
      expect(await kv().get(key)).toBe(answers[0]);
      expect(await kv().setIfAbsent(key, 'later', 60)).toBe(answers[0]);
      // Once the value is gone, the next call stores its own.
      await kv().del(key);
      expect(await kv().setIfAbsent(key, 'again', 60)).toBe('again');
    });

    it('setIfAbsent with a ttl of 0 stores nothing and answers its value', async () => {
      const key = fresh();
      expect(await kv().setIfAbsent(key, 'v', 0)).toBe('v');
      expect(await kv().get(key)).toBeNull();
    });

    it('a concurrency limiter holds at most max slots per key; a release frees one, twice frees one', async () => {
      const limiter = kv().concurrencyLimiter({ name: `c${randomUUID()}`, max: 2, leaseSeconds: 60 });
      const slots = await Promise.all([1, 2, 3, 4].map(() => limiter.acquire('tenant')));
      expect(slots.filter(Boolean)).toHaveLength(2);
      expect(await limiter.acquire('other')).not.toBeNull();
      // Refused takes gave their point back: one release is enough for one more.
      const held = slots.filter((s) => s !== null);
      await held[0]!.release();
      await held[0]!.release();
      expect(await limiter.acquire('tenant')).not.toBeNull();
      expect(await limiter.acquire('tenant')).toBeNull();
    });

    it('a refund gives a point back, never below nothing spent', async () => {
      const limiter = kv().rateLimiter({ name: `r${randomUUID()}`, points: 2, durationSeconds: 60 });
      await limiter.consume('k');
      await limiter.consume('k');
      expect((await limiter.consume('k')).allowed).toBe(false);
      await limiter.refund!('k');
      await limiter.refund!('k');
      expect(await limiter.consume('k')).toMatchObject({ allowed: true, remaining: 0 });
      await limiter.refund!('fresh');
      await limiter.refund!('fresh');
      expect(await limiter.consume('fresh')).toMatchObject({ allowed: true, remaining: 1 });
    });

    it('rate limiters name their policy: limit per window', () => {
      const name = `p${randomUUID()}`;
      expect(kv().rateLimiter({ name, points: 7, durationSeconds: 30 }).policy).toEqual({
        name,
        limit: 7,
        windowSeconds: 30,
      });
    });
  });
}
