export type {
  ConcurrencyLimiter,
  ConcurrencyOptions,
  ConcurrencySlot,
  KvStore,
  RateLimiter,
  RateLimitOptions,
  RateLimitPolicy,
  RateLimitResult,
} from './port';
export { createMemoryKv } from './memory';
export { createRedisKv, redisOptions, type RedisConnection } from './redis';
export { wrapConcurrency, wrapLimiter } from './limiter';
export { guardKv, KV_RETRY_AFTER_SECONDS } from './guard';
export { createCursorStore, CURSOR_TTL_SECONDS, type CursorStore } from './cursors';
export { createViewVersions, viewChangeNotifier, VIEW_TOKEN_TTL_SECONDS, type ViewVersions } from './view-versions';
