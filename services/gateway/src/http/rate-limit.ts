import type { Response } from 'express';
import { rateLimited } from '@kg/contracts';
import type { RateLimiter, RateLimitResult } from '@kg/kv';

/** Response headers a browser may read across origins (CORS): Retry-After and every RateLimit field. */
export const RATE_LIMIT_HEADERS = ['Retry-After', 'RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset'];
export const IETF_RATE_LIMIT_HEADERS = ['RateLimit', 'RateLimit-Policy'];

/** Sets the RateLimit-* headers of API-CONVENTIONS.md. */
export function setRateLimitHeaders(res: Response, r: RateLimitResult): void {
  res.setHeader('RateLimit-Limit', String(r.limit));
  res.setHeader('RateLimit-Remaining', String(Math.max(0, r.remaining)));
  res.setHeader('RateLimit-Reset', String(r.resetSeconds));
}

/** A policy name as a structured-field string (RFC 9651 sf-string): printable ASCII, `"` and `\` escaped. */
const sfString = (s: string) => `"${s.replace(/[^\x20-\x7e]/g, '').replace(/["\\]/g, (c) => `\\${c}`)}"`;

/**
 * The IETF fields of draft-ietf-httpapi-ratelimit-headers-10, one item per policy consulted:
 * `RateLimit-Policy: "search-tenant";q=240;w=60` (quota q per window w seconds) and
 * `RateLimit: "search-tenant";r=239;t=60` (r remaining, t seconds until the quota resets).
 */
export function setIetfRateLimitHeaders(
  res: Response,
  consulted: Array<{ limiter: RateLimiter; result: RateLimitResult }>,
): void {
  const named = consulted.filter((c) => c.limiter.policy);
  if (named.length === 0) return;
  res.setHeader(
    'RateLimit-Policy',
    named.map(({ limiter: { policy: p } }) => `${sfString(p!.name)};q=${p!.limit};w=${p!.windowSeconds}`).join(', '),
  );
  res.setHeader(
    'RateLimit',
    named
      .map(
        ({ limiter, result }) =>
          `${sfString(limiter.policy!.name)};r=${Math.max(0, result.remaining)};t=${result.resetSeconds}`,
      )
      .join(', '),
  );
}

/**
 * Consumes one point from each limiter (all keys checked at once). The tightest result sets the
 * RateLimit-Limit/-Remaining/-Reset headers; every policy is listed in RateLimit-Policy and
 * RateLimit. When one is exhausted: 429 with Retry-After, the longest wait of those exhausted,
 * and the points the others gave are refunded.
 */
export async function enforceLimits(res: Response, checks: Array<[RateLimiter, string]>): Promise<void> {
  const results = await Promise.all(checks.map(([limiter, key]) => limiter.consume(key)));
  const blocked = results.filter((r) => !r.allowed).sort((a, b) => b.resetSeconds - a.resetSeconds)[0];
  const tightest = blocked ?? [...results].sort((a, b) => a.remaining - b.remaining)[0];
  if (tightest) setRateLimitHeaders(res, tightest);
  setIetfRateLimitHeaders(
    res,
    checks.map(([limiter], i) => ({ limiter, result: results[i]! })),
  );
  if (!blocked) return;
  // A refused request spends nothing: a credential past its own limit cannot drain its tenant's.
  await Promise.all(checks.map(([limiter, key], i) => (results[i]!.allowed ? limiter.refund?.(key) : undefined))).catch(
    () => undefined,
  );
  const policy = checks[results.indexOf(blocked)]?.[0].policy;
  const which = policy ? ` (limit "${policy.name}": ${policy.limit} per ${policy.windowSeconds} s)` : '';
  throw rateLimited(blocked.resetSeconds, `Too many requests${which}; retry in ${blocked.resetSeconds} s`);
}
