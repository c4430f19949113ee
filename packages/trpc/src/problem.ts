import { TRPCError } from '@trpc/server';
import { getHTTPStatusCodeFromError } from '@trpc/server/http';
import { ZodError } from 'zod';
import { TRPCClientError } from '@trpc/client';
import { AppError, ERROR_TITLE, type ErrorKind, type FieldError } from '@kg/contracts';
import { problemFromClientError } from './client-error';
import type { ProblemData } from './problem-data';

export type { ProblemData } from './problem-data';

const TRPC_CODE: Record<ErrorKind, TRPCError['code']> = {
  invalid: 'BAD_REQUEST',
  unauthorized: 'UNAUTHORIZED',
  forbidden: 'FORBIDDEN',
  not_found: 'NOT_FOUND',
  conflict: 'CONFLICT',
  gone: 'PRECONDITION_FAILED',
  request_timeout: 'TIMEOUT',
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
  // A peer's answer passes through as the peer gave it (a peer that cannot be reached: 503).
  if (cause instanceof TRPCClientError) return problemFromClientError(cause, 'upstream')!;
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

/**
 * An error the procedure did not mean to raise: a bug, a driver failure, output that breaks
 * its contract. Typed domain errors, validation failures and a peer's answers are not.
 */
export function isUnexpectedError(error: TRPCError): boolean {
  if (error.cause instanceof AppError || error.cause instanceof TRPCClientError) return false;
  const status = problemFromTRPCError(error).status;
  return status >= 500 && status !== 501;
}

/** What logging an unexpected error needs: any pino logger fits. */
export interface ErrorLogger {
  error(fields: object, message: string): void;
}

/**
 * Logs an unexpected error once, at error level, with its stack and the request id, in the
 * service where it happened. Both transports call it (the HTTP adapter's and the in-process
 * link's `onError`); the caller only gets the generic problem.
 */
export function logUnexpectedError(
  logger: ErrorLogger,
  opts: { error: TRPCError; path?: string; ctx?: { caller?: string; requestId?: string } },
): void {
  if (!isUnexpectedError(opts.error)) return;
  logger.error(
    { err: opts.error.cause ?? opts.error, path: opts.path, caller: opts.ctx?.caller, requestId: opts.ctx?.requestId },
    'procedure failed',
  );
}
