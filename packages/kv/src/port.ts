export interface RateLimitResult {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the window resets. */
  resetSeconds: number;
}

export interface RateLimiter {
  consume(key: string, points?: number): Promise<RateLimitResult>;
}

export interface RateLimitOptions {
  /** Namespace of this limit, e.g. `magic-link-email`. */
  name: string;
  points: number;
  durationSeconds: number;
}

/**
 * Key-value store port for short-lived shared state: rate limits and server-side
 * cursors. Adapters: in-memory (embedded mode) and Redis (distributed mode, shared
 * across gateway replicas).
 */
export interface KvStore {
  readonly kind: 'memory' | 'redis';
  get(key: string): Promise<string | null>;
  set(key: string, value: string, ttlSeconds: number): Promise<void>;
  del(key: string): Promise<void>;
  /** Reads and deletes a value in one atomic step (one-use values: of two concurrent takes, one gets it). */
  take(key: string): Promise<string | null>;
  /**
   * Stores `value` unless the key holds one, and returns what the key holds then: of two
   * concurrent calls, both get the value stored first. A ttl of 0 or less stores nothing.
   */
  setIfAbsent(key: string, value: string, ttlSeconds: number): Promise<string>;
  rateLimiter(opts: RateLimitOptions): RateLimiter;
  ping(): Promise<boolean>;
  close(): Promise<void>;
}
