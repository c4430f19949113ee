export type { KvStore, RateLimiter, RateLimitOptions, RateLimitResult } from './port';
export { createMemoryKv } from './memory';
export { wrapLimiter } from './limiter';
