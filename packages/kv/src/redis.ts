import { Redis } from 'ioredis';
import { RateLimiterRedis } from 'rate-limiter-flexible';
import type { KvStore } from './port';
import { wrapLimiter } from './limiter';

/**
 * Redis kv for the distributed mode: cursors and rate limits are shared by every
 * gateway replica. Keys are namespaced under `kg:`.
 */
export function createRedisKv(url: string): KvStore {
  const redis = new Redis(url, { maxRetriesPerRequest: 2, enableOfflineQueue: true, lazyConnect: false });
  redis.on('error', () => {
    // Connection errors surface through ping()/readiness and failed commands; ioredis reconnects itself.
  });
  const ns = (key: string) => `kg:${key}`;
  return {
    kind: 'redis',
    get: (key) => redis.get(ns(key)),
    async set(key, value, ttlSeconds) {
      if (ttlSeconds <= 0) {
        await redis.del(ns(key));
        return;
      }
      await redis.set(ns(key), value, 'EX', ttlSeconds);
    },
    async del(key) {
      await redis.del(ns(key));
    },
    rateLimiter({ name, points, durationSeconds }) {
      return wrapLimiter(
        new RateLimiterRedis({ storeClient: redis, keyPrefix: `kg:rl:${name}`, points, duration: durationSeconds }),
        points,
      );
    },
    async ping() {
      try {
        return (await redis.ping()) === 'PONG';
      } catch {
        return false;
      }
    },
    async close() {
      await redis.quit().catch(() => redis.disconnect());
    },
  };
}
