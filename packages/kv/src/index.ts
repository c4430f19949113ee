export type { KvStore, RateLimiter, RateLimitOptions, RateLimitResult } from './port';
export { createMemoryKv } from './memory';
export { createRedisKv } from './redis';
export { wrapLimiter } from './limiter';
export { createCursorStore, CURSOR_TTL_SECONDS, type CursorStore } from './cursors';
