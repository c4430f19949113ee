import { RateLimiterMemory } from 'rate-limiter-flexible';
import type { KvStore } from './port';
import { wrapConcurrency, wrapLimiter } from './limiter';

/** In-memory kv for the one-process mode: values expire lazily and on a periodic sweep. */
export function createMemoryKv(): KvStore {
  const values = new Map<string, { value: string; expiresAt: number }>();
  const sweep = setInterval(() => {
    const now = Date.now();
    for (const [k, v] of values) if (v.expiresAt <= now) values.delete(k);
  }, 60_000);
  sweep.unref();

  return {
    kind: 'memory',
    async get(key) {
      const entry = values.get(key);
      if (!entry) return null;
      if (entry.expiresAt <= Date.now()) {
        values.delete(key);
        return null;
      }
      return entry.value;
    },
    async set(key, value, ttlSeconds) {
      values.set(key, { value, expiresAt: Date.now() + ttlSeconds * 1000 });
    },
    async del(key) {
      values.delete(key);
    },
    async take(key) {
      // No await between the read and the delete: atomic on the one event loop.
      const entry = values.get(key);
      values.delete(key);
      return entry && entry.expiresAt > Date.now() ? entry.value : null;
    },
    async setIfAbsent(key, value, ttlSeconds) {
      // No await between the read and the write: atomic on the one event loop.
      const entry = values.get(key);
      if (entry && entry.expiresAt > Date.now()) return entry.value;
      if (ttlSeconds > 0) values.set(key, { value, expiresAt: Date.now() + ttlSeconds * 1000 });
      else values.delete(key);
      return value;
    },
    rateLimiter({ name, points, durationSeconds }) {
      return wrapLimiter(new RateLimiterMemory({ keyPrefix: name, points, duration: durationSeconds }), points, {
        name,
        limit: points,
        windowSeconds: durationSeconds,
      });
    },
    concurrencyLimiter({ name, max, leaseSeconds }) {
      return wrapConcurrency(new RateLimiterMemory({ keyPrefix: name, points: max, duration: leaseSeconds }), max);
    },
    async ping() {
      return true;
    },
    async close() {
      clearInterval(sweep);
      values.clear();
    },
  };
}
