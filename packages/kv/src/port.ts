export interface RateLimitResult {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the window resets. */
  resetSeconds: number;
}

/** What a limiter allows, for the IETF `RateLimit-Policy` header: `limit` points per `windowSeconds`. */
export interface RateLimitPolicy {
  name: string;
  limit: number;
  windowSeconds: number;
}

export interface RateLimiter {
  consume(key: string, points?: number): Promise<RateLimitResult>;
  /** Gives points back (a request another limit refused does not spend this one); absent on stand-ins. */
  refund?(key: string, points?: number): Promise<void>;
  /** The policy it enforces (absent on stand-ins that do not say). */
  readonly policy?: RateLimitPolicy;
}

/** A slot of a concurrency limit, held until released (or until its lease runs out). */
export interface ConcurrencySlot {
  release(): Promise<void>;
}

/**
 * At most `max` holders at once per key (concurrent uploads of a tenant). `acquire` answers
 * null when all slots are held. A slot that is never released (its process died) frees
 * itself when the key's lease ends, `leaseSeconds` after the key was first taken.
 */
export interface ConcurrencyLimiter {
  acquire(key: string): Promise<ConcurrencySlot | null>;
  readonly max: number;
}

export interface ConcurrencyOptions {
  name: string;
  max: number;
  leaseSeconds: number;
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
  concurrencyLimiter(opts: ConcurrencyOptions): ConcurrencyLimiter;
  ping(): Promise<boolean>;
  close(): Promise<void>;
}
