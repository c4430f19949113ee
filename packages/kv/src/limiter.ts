import { RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { ConcurrencyLimiter, RateLimiter, RateLimitPolicy, RateLimitResult } from './port';

/** Adapts a rate-limiter-flexible limiter (memory or Redis) to the port. */
export function wrapLimiter(limiter: RateLimiterAbstract, points: number, policy?: RateLimitPolicy): RateLimiter {
  return {
    ...(policy ? { policy } : {}),
    async refund(key, points = 1) {
      const held = await limiter.get(key);
      if (held && held.consumedPoints > 0) await limiter.reward(key, Math.min(points, held.consumedPoints));
    },
    async consume(key, cost = 1): Promise<RateLimitResult> {
      try {
        const res = await limiter.consume(key, cost);
        return {
          allowed: true,
          limit: points,
          remaining: res.remainingPoints,
          resetSeconds: Math.ceil(res.msBeforeNext / 1000),
        };
      } catch (err) {
        if (err instanceof RateLimiterRes) {
          return {
            allowed: false,
            limit: points,
            remaining: 0,
            resetSeconds: Math.max(1, Math.ceil(err.msBeforeNext / 1000)),
          };
        }
        throw err;
      }
    },
  };
}

/**
 * A concurrency limit on a rate-limiter-flexible limiter whose window is the lease: taking
 * a slot consumes a point, releasing rewards it. A refused take gives its point back at
 * once. A release after the window has ended (the count started again from zero) gives
 * nothing back, so the count never goes below zero; the limit is then approximate for the
 * slots taken before the window ended, never unbounded.
 */
export function wrapConcurrency(limiter: RateLimiterAbstract, max: number): ConcurrencyLimiter {
  const giveBack = async (key: string) => {
    const held = await limiter.get(key);
    if (held && held.consumedPoints > 0) await limiter.reward(key, 1);
  };
  return {
    max,
    async acquire(key) {
      try {
        await limiter.consume(key, 1);
      } catch (err) {
        if (err instanceof RateLimiterRes) {
          await giveBack(key);
          return null;
        }
        throw err;
      }
      let released = false;
      return {
        async release() {
          if (released) return;
          released = true;
          await giveBack(key);
        },
      };
    },
  };
}
