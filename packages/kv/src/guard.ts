import { AppError, isAppError } from '@kg/contracts';
import type { ConcurrencyLimiter, KvStore, RateLimiter } from './port';

/** Seconds a client is asked to wait (Retry-After) when the kv store cannot be reached. */
export const KV_RETRY_AFTER_SECONDS = 5;

const outage = (err: unknown): never => {
  if (isAppError(err)) throw err;
  throw new AppError('unavailable', 'Rate limits and cursors are temporarily unavailable; try again shortly', {
    retryAfterSeconds: KV_RETRY_AFTER_SECONDS,
  });
};

/**
 * The kv store as callers see it: a failing store (Redis down, a timeout) raises the typed
 * `unavailable` error (503 with Retry-After) instead of whatever the driver threw (a 500).
 * `ping` and `close` keep their own handling.
 */
export function guardKv(kv: KvStore): KvStore {
  const limiter = (inner: RateLimiter): RateLimiter => ({
    ...(inner.policy ? { policy: inner.policy } : {}),
    consume: (key, points) => inner.consume(key, points).catch(outage),
    ...(inner.refund ? { refund: (key: string, points?: number) => inner.refund!(key, points).catch(outage) } : {}),
  });
  const concurrency = (inner: ConcurrencyLimiter): ConcurrencyLimiter => ({
    max: inner.max,
    acquire: async (key) => {
      const slot = await inner.acquire(key).catch(outage);
      // A failed release is left to the lease: the answer has been given by then.
      return slot && { release: () => slot.release().catch(() => undefined) };
    },
  });
  return {
    kind: kv.kind,
    get: (key) => kv.get(key).catch(outage),
    set: (key, value, ttl) => kv.set(key, value, ttl).catch(outage),
    del: (key) => kv.del(key).catch(outage),
    take: (key) => kv.take(key).catch(outage),
    setIfAbsent: (key, value, ttl) => kv.setIfAbsent(key, value, ttl).catch(outage),
    rateLimiter: (opts) => limiter(kv.rateLimiter(opts)),
    concurrencyLimiter: (opts) => concurrency(kv.concurrencyLimiter(opts)),
    ping: () => kv.ping(),
    close: () => kv.close(),
  };
}
