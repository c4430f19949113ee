/**
 * Errors a caller of the SDK can tell apart: the API answered with a problem (ApiError),
 * nobody is signed in or the session ended (AuthRequiredError), the configuration is wrong
 * (ConfigError), or the server could not be reached (NetworkError).
 */
export interface FieldError {
  path: string;
  message: string;
}

export class KgError extends Error {
  override name = 'KgError';
}

/** An RFC 9457 problem+json answer (docs/API.md "Errors"), or a non-problem error status. */
export class ApiError extends KgError {
  override name = 'ApiError';
  readonly status: number;
  readonly type: string;
  readonly title: string;
  readonly detail: string | undefined;
  readonly errors: FieldError[];
  readonly requestId: string | undefined;
  readonly retryAfterSeconds: number | undefined;

  constructor(init: {
    status: number;
    type?: string;
    title?: string;
    detail?: string;
    errors?: FieldError[];
    requestId?: string;
    retryAfterSeconds?: number;
  }) {
    const title = init.title ?? `HTTP ${init.status}`;
    super(init.detail ? `${title}: ${init.detail}` : title);
    this.status = init.status;
    this.type = init.type ?? 'about:blank';
    this.title = title;
    this.detail = init.detail;
    this.errors = init.errors ?? [];
    this.requestId = init.requestId;
    this.retryAfterSeconds = init.retryAfterSeconds;
  }
}

/** No credential is available, or the stored session can no longer be refreshed. */
export class AuthRequiredError extends KgError {
  override name = 'AuthRequiredError';
}

/** SVC_TOKEN or SVC_API_URL hold something the SDK refuses (a JWT in SVC_TOKEN, a bad URL). */
export class ConfigError extends KgError {
  override name = 'ConfigError';
}

/** The server could not be reached (refused connection, DNS, timeout). */
export class NetworkError extends KgError {
  override name = 'NetworkError';
}

const isFieldErrors = (v: unknown): v is FieldError[] =>
  Array.isArray(v) && v.every((e) => e && typeof e === 'object' && typeof e.path === 'string');

/** Reads an error answer into an ApiError; the body is problem+json when the server says so. */
export async function apiErrorFrom(res: Response): Promise<ApiError> {
  const text = await res.text().catch(() => '');
  let body: Record<string, unknown> = {};
  try {
    const parsed: unknown = text ? JSON.parse(text) : {};
    if (parsed && typeof parsed === 'object') body = parsed as Record<string, unknown>;
  } catch {
    // not JSON: the status speaks for itself
  }
  const str = (v: unknown) => (typeof v === 'string' ? v : undefined);
  const retry = Number(res.headers.get('retry-after'));
  return new ApiError({
    status: res.status,
    type: str(body['type']),
    title: str(body['title']) ?? (res.statusText || undefined),
    detail: str(body['detail']),
    errors: isFieldErrors(body['errors']) ? body['errors'] : [],
    requestId: res.headers.get('x-request-id') ?? undefined,
    retryAfterSeconds: Number.isFinite(retry) && retry > 0 ? retry : undefined,
  });
}
