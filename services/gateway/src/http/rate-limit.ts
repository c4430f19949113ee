import type { Response } from 'express';
import { rateLimited } from '@kg/contracts';
import type { RateLimiter, RateLimitResult } from '@kg/kv';

/** Sets the RateLimit-* headers of API-CONVENTIONS.md. */
export function setRateLimitHeaders(res: Response, r: RateLimitResult): void {
  res.setHeader('RateLimit-Limit', String(r.limit));
  res.setHeader('RateLimit-Remaining', String(Math.max(0, r.remaining)));
  res.setHeader('RateLimit-Reset', String(r.resetSeconds));
}

/** Consumes one point from each limiter (all keys checked); the tightest result sets the headers. */
export async function enforceLimits(res: Response, checks: Array<[RateLimiter, string]>): Promise<void> {
  const results = await Promise.all(checks.map(([limiter, key]) => limiter.consume(key)));
  const blocked = results.filter((r) => !r.allowed).sort((a, b) => b.resetSeconds - a.resetSeconds)[0];
  const tightest = blocked ?? results.sort((a, b) => a.remaining - b.remaining)[0];
  if (tightest) setRateLimitHeaders(res, tightest);
  if (blocked) throw rateLimited(blocked.resetSeconds, `Too many requests; retry in ${blocked.resetSeconds} s`);
}
