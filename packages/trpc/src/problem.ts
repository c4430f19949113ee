import { TRPCError } from '@trpc/server';
import { getHTTPStatusCodeFromError } from '@trpc/server/http';
import { ZodError } from 'zod';
import { AppError, ERROR_TITLE, type ErrorKind, type FieldError } from '@kg/contracts';

/** The problem data carried in every tRPC error shape, so any caller can rebuild RFC 9457 bodies. */
export interface ProblemData {
  status: number;
  title: string;
  detail: string;
  errors?: FieldError[];
  retryAfterSeconds?: number;
}

const TRPC_CODE: Record<ErrorKind, TRPCError['code']> = {
  invalid: 'BAD_REQUEST',
  unauthorized: 'UNAUTHORIZED',
  forbidden: 'FORBIDDEN',
  not_found: 'NOT_FOUND',
  conflict: 'CONFLICT',
  gone: 'PRECONDITION_FAILED',
  payload_too_large: 'PAYLOAD_TOO_LARGE',
  unsupported_media_type: 'UNSUPPORTED_MEDIA_TYPE',
  rate_limited: 'TOO_MANY_REQUESTS',
  not_implemented: 'NOT_IMPLEMENTED',
  unavailable: 'SERVICE_UNAVAILABLE',
};

export const toTRPCError = (err: AppError): TRPCError =>
  new TRPCError({ code: TRPC_CODE[err.kind], message: err.message, cause: err });

/** Flattens zod issues to `{path, message}`; each unknown key gets its own entry with its path. */
export function zodFieldErrors(err: ZodError): FieldError[] {
  return err.issues.flatMap((issue) => {
    const base = issue.path.map(String);
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) => ({ path: [...base, key].join('.'), message: 'unknown field' }));
    }
    return [{ path: base.join('.') || '(body)', message: issue.message }];
  });
}

/** Problem data of a typed domain error. */
export function problemFromAppError(err: AppError): ProblemData {
  return {
    status: err.status,
    title: ERROR_TITLE[err.kind],
    detail: err.message,
    ...(err.extra.errors ? { errors: err.extra.errors } : {}),
    ...(err.extra.retryAfterSeconds !== undefined ? { retryAfterSeconds: err.extra.retryAfterSeconds } : {}),
  };
}

/** Turns any error a procedure raised into problem data; internal details never leave. */
export function problemFromTRPCError(error: TRPCError): ProblemData {
  const cause = error.cause;
  if (cause instanceof AppError) return problemFromAppError(cause);
  if (cause instanceof ZodError && error.code === 'BAD_REQUEST') {
    return {
      status: 400,
      title: ERROR_TITLE.invalid,
      detail: 'The request failed validation',
      errors: zodFieldErrors(cause),
    };
  }
  const status = getHTTPStatusCodeFromError(error);
  if (status >= 500) return { status, title: 'Internal error', detail: 'An unexpected error occurred' };
  return { status, title: error.code, detail: error.message };
}
