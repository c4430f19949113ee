import { RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { RateLimiter, RateLimitResult } from './port';

/** Adapts a rate-limiter-flexible limiter (memory or Redis) to the port. */
export function wrapLimiter(limiter: RateLimiterAbstract, points: number): RateLimiter {
  return {
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
