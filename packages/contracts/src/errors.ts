/**
 * Typed domain errors. Services throw these; they are mapped once to tRPC codes
 * (packages/trpc) and once to RFC 9457 problem+json (the gateway).
 */
export type ErrorKind =
  | 'invalid'
  | 'unauthorized'
  | 'forbidden'
  | 'not_found'
  | 'conflict'
  | 'gone'
  | 'request_timeout'
  | 'payload_too_large'
  | 'unsupported_media_type'
  | 'rate_limited'
  | 'not_implemented'
  | 'unavailable';

export const ERROR_STATUS: Record<ErrorKind, number> = {
  invalid: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  gone: 410,
  request_timeout: 408,
  payload_too_large: 413,
  unsupported_media_type: 415,
  rate_limited: 429,
  not_implemented: 501,
  unavailable: 503,
};

export const ERROR_TITLE: Record<ErrorKind, string> = {
  invalid: 'Invalid request',
  unauthorized: 'Unauthorized',
  forbidden: 'Forbidden',
  not_found: 'Not found',
  conflict: 'Conflict',
  gone: 'Gone',
  request_timeout: 'Request timeout',
  payload_too_large: 'Payload too large',
  unsupported_media_type: 'Unsupported media type',
  rate_limited: 'Too many requests',
  not_implemented: 'Not implemented',
  unavailable: 'Service unavailable',
};

export interface FieldError {
  path: string;
  message: string;
}

export class AppError extends Error {
  constructor(
    readonly kind: ErrorKind,
    message: string,
    readonly extra: { errors?: FieldError[]; retryAfterSeconds?: number } = {},
  ) {
    super(message);
    this.name = 'AppError';
  }
  get status(): number {
    return ERROR_STATUS[this.kind];
  }
}

export const notFound = (what: string) => new AppError('not_found', `${what} not found`);
export const invalid = (message: string, errors?: FieldError[]) =>
  new AppError('invalid', message, errors ? { errors } : {});
export const conflict = (message: string) => new AppError('conflict', message);
export const unauthorized = (message = 'Missing or invalid credentials') => new AppError('unauthorized', message);
export const notImplemented = (what: string) =>
  new AppError('not_implemented', `${what} is not implemented yet in this release`);
export const rateLimited = (retryAfterSeconds: number, message = 'Rate limit exceeded') =>
  new AppError('rate_limited', message, { retryAfterSeconds });
export const unavailable = (message: string) => new AppError('unavailable', message);

export const isAppError = (e: unknown): e is AppError => e instanceof AppError;
