import { Redis, type RedisOptions } from 'ioredis';
import { RateLimiterRedis } from 'rate-limiter-flexible';
import type { KvStore } from './port';
import { wrapConcurrency, wrapLimiter } from './limiter';

export interface RedisConnection {
  /** redis://[user:password@]host:port[/db] or rediss://… (TLS, certificate verified). */
  url: string;
  /** Password kept out of the URL (REDIS_PASSWORD); wins over one in the URL. */
  password?: string | undefined;
}

/** Maps a Redis URL (and an optional separate password) to ioredis options. */
export function redisOptions(conn: RedisConnection): RedisOptions {
  const u = new URL(conn.url);
  if (u.protocol !== 'redis:' && u.protocol !== 'rediss:') throw new Error('REDIS_URL must be redis:// or rediss://');
  const options: RedisOptions = {
    host: u.hostname.replace(/^\[|\]$/g, ''),
    port: u.port ? Number(u.port) : 6379,
    maxRetriesPerRequest: 2,
    enableOfflineQueue: true,
    lazyConnect: false,
    // Commands issued in one tick (a graph view's two rate limits and its view token) leave in one write.
    enableAutoPipelining: true,
  };
  const db = u.pathname.replace(/^\//, '');
  if (db) options.db = Number(db);
  if (u.username) options.username = decodeURIComponent(u.username);
  const password = conn.password ?? (u.password ? decodeURIComponent(u.password) : undefined);
  if (password) options.password = password;
  // rediss://: TLS with the system CAs, the host name checked against the certificate.
  if (u.protocol === 'rediss:') options.tls = { servername: options.host! };
  return options;
}

/**
 * Redis kv for the distributed mode: cursors and rate limits are shared by every
 * gateway replica. Keys are namespaced under `kg:`.
 */
export function createRedisKv(conn: RedisConnection | string): KvStore {
  const redis = new Redis(redisOptions(typeof conn === 'string' ? { url: conn } : conn));
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
    // GETDEL (Redis 6.2+): read and delete in one command.
    take: (key) => redis.getdel(ns(key)),
    async setIfAbsent(key, value, ttlSeconds) {
      if (ttlSeconds <= 0) return value;
      // SET NX (any Redis), then the winner's value when another call stored first.
      if ((await redis.set(ns(key), value, 'EX', ttlSeconds, 'NX')) === 'OK') return value;
      return (await redis.get(ns(key))) ?? value;
    },
    rateLimiter({ name, points, durationSeconds }) {
      return wrapLimiter(
        new RateLimiterRedis({ storeClient: redis, keyPrefix: `kg:rl:${name}`, points, duration: durationSeconds }),
        points,
        { name, limit: points, windowSeconds: durationSeconds },
      );
    },
    concurrencyLimiter({ name, max, leaseSeconds }) {
      return wrapConcurrency(
        new RateLimiterRedis({ storeClient: redis, keyPrefix: `kg:cl:${name}`, points: max, duration: leaseSeconds }),
        max,
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
