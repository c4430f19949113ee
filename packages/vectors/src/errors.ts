import { AppError } from '@kg/contracts';

/** Seconds a client is asked to wait (Retry-After) when the vector index cannot answer. */
export const VECTORS_RETRY_AFTER_SECONDS = 5;

/**
 * Why the vector index cannot answer: nothing listens or the connection broke (`unreachable`),
 * no answer within the request timeout (`timeout`), the server or a proxy says it is busy or
 * down (`overloaded`: 429, 502, 503, 504), it refuses our credentials (`unauthorized`: 401,
 * 403, a wrong or missing QDRANT_API_KEY), or its collection holds other vectors than the
 * model's or was deleted while search runs (`misconfigured`: until an operator fixes it).
 */
export type VectorIndexUnavailableReason = 'unreachable' | 'timeout' | 'overloaded' | 'unauthorized' | 'misconfigured';

/**
 * The vector index cannot answer now. An `unavailable` AppError, so a procedure that lets it
 * through answers 503 problem+json with Retry-After (never a 500); its message is the public
 * one, with nothing of the server's address or answer. `diagnostic` is the line for the
 * service's log: the operation, what failed, and the setting to check.
 */
export class VectorIndexUnavailableError extends AppError {
  readonly reason: VectorIndexUnavailableReason;
  readonly diagnostic: string;

  constructor(
    reason: VectorIndexUnavailableReason,
    diagnostic: string,
    options: { cause?: unknown; retryAfterSeconds?: number } = {},
  ) {
    super('unavailable', 'Semantic search is temporarily unavailable; try again shortly', {
      retryAfterSeconds: options.retryAfterSeconds ?? VECTORS_RETRY_AFTER_SECONDS,
    });
    this.name = 'VectorIndexUnavailableError';
    this.reason = reason;
    this.diagnostic = diagnostic;
    if (options.cause !== undefined) this.cause = options.cause;
  }
}

export const isVectorIndexUnavailable = (err: unknown): err is VectorIndexUnavailableError =>
  err instanceof VectorIndexUnavailableError;

/**
 * An existing collection whose vectors differ from what the caller needs (size or distance).
 * The adapter refuses to use it rather than mix vectors: a start-up error that names the
 * setting that differs.
 */
export class VectorCollectionMismatchError extends Error {
  constructor(
    readonly collection: string,
    readonly setting: 'size' | 'distance' | 'layout',
    message: string,
  ) {
    super(message);
    this.name = 'VectorCollectionMismatchError';
  }
}

/** Network failures of Node's fetch (undici): the `code` of the error's cause. */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ETIMEDOUT',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
]);

const field = (value: unknown, key: string): unknown =>
  value !== null && typeof value === 'object' && key in value ? (value as Record<string, unknown>)[key] : undefined;

/** The `code` of an error or of the errors in its cause chain (undici nests them). */
function networkCode(err: unknown): string | undefined {
  for (let e: unknown = err, depth = 0; e !== undefined && depth < 5; e = field(e, 'cause'), depth += 1) {
    const code = field(e, 'code');
    if (typeof code === 'string' && NETWORK_CODES.has(code)) return code;
    const inner = field(e, 'errors'); // AggregateError: one per address tried
    if (Array.isArray(inner)) for (const each of inner) if (networkCode(each)) return networkCode(each);
  }
  return undefined;
}

/** Qdrant's own error text (`{ status: { error } }`), else the error's message. */
export function describeQdrantError(err: unknown): string {
  const error = field(field(field(err, 'data'), 'status'), 'error');
  if (typeof error === 'string') return error;
  const message = err instanceof Error ? err.message : String(err);
  const cause = field(field(err, 'cause'), 'message'); // undici: "fetch failed", cause "connect ECONNREFUSED …"
  const full = typeof cause === 'string' && cause !== '' ? `${message}: ${cause}` : message;
  const code = networkCode(err);
  return code && !full.includes(code) ? `${full} (${code})` : full;
}

/**
 * The typed error for a failed Qdrant call when it means "cannot answer now", else undefined
 * (a 4xx about the request itself, such as a dimension error, stays an ordinary error).
 */
export function unavailableFromQdrant(operation: string, err: unknown): VectorIndexUnavailableError | undefined {
  const what = `vectors: qdrant ${operation} failed: ${describeQdrantError(err)}`;
  const name = field(err, 'name');
  const status = field(err, 'status');
  if (name === 'QdrantClientTimeoutError')
    return new VectorIndexUnavailableError('timeout', `${what} (no answer within the request timeout)`, { cause: err });
  if (name === 'QdrantClientResourceExhaustedError') {
    const retry = field(err, 'retry_after');
    const retryAfterSeconds = typeof retry === 'number' && retry > 0 ? Math.ceil(retry) : undefined;
    return new VectorIndexUnavailableError('overloaded', what, {
      cause: err,
      ...(retryAfterSeconds ? { retryAfterSeconds } : {}),
    });
  }
  if (status === 401 || status === 403)
    return new VectorIndexUnavailableError(
      'unauthorized',
      `${what} (Qdrant refused the API key: check QDRANT_API_KEY)`,
      { cause: err },
    );
  // The collection itself gone (deleted by hand while search runs, which made it at start-up):
  // no call can succeed until search makes it again; a missing point (404 too) stays a plain error.
  if (status === 404 && /Collection `[^`]*` doesn't exist/.test(describeQdrantError(err)))
    return new VectorIndexUnavailableError(
      'misconfigured',
      `${what} (deleted while search runs: restart search, which makes it anew and embeds every node again)`,
      { cause: err },
    );
  if (status === 429 || status === 502 || status === 503 || status === 504)
    return new VectorIndexUnavailableError('overloaded', what, { cause: err });
  if (typeof status !== 'number' && (networkCode(err) || (err instanceof TypeError && err.message === 'fetch failed')))
    return new VectorIndexUnavailableError('unreachable', `${what} (check QDRANT_URL and that Qdrant is up)`, {
      cause: err,
    });
  return undefined;
}
