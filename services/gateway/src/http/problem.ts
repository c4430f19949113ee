import type { Response } from 'express';
import { isAppError, type FieldError } from '@kg/contracts';
import { problemFromAppError, problemFromClientError, type ProblemData } from '@kg/trpc';
import type { Logger } from '@kg/logger';

const TYPE_BASE = 'https://kg.dev/problems/';

const SLUG: Record<number, string> = {
  400: 'invalid-request',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not-found',
  405: 'method-not-allowed',
  408: 'request-timeout',
  409: 'conflict',
  410: 'gone',
  413: 'payload-too-large',
  415: 'unsupported-media-type',
  429: 'rate-limited',
  500: 'internal',
  501: 'not-implemented',
  503: 'unavailable',
};

export const WWW_AUTHENTICATE = 'Bearer realm="kg", ApiKey realm="kg"';

/** Writes an RFC 9457 body. The single place where errors become HTTP. */
export function sendProblem(res: Response, p: ProblemData, instance?: string): void {
  if (p.status === 401) res.setHeader('WWW-Authenticate', WWW_AUTHENTICATE);
  if (p.retryAfterSeconds !== undefined) res.setHeader('Retry-After', String(p.retryAfterSeconds));
  res
    .status(p.status)
    .type('application/problem+json')
    .json({
      type: TYPE_BASE + (SLUG[p.status] ?? 'error'),
      title: p.title,
      status: p.status,
      detail: p.detail,
      ...(instance ? { instance } : {}),
      ...(p.errors ? { errors: p.errors } : {}),
    });
}

export function problem(status: number, title: string, detail: string, errors?: FieldError[]): ProblemData {
  return { status, title, detail, ...(errors ? { errors } : {}) };
}

/** Maps anything a route threw: domain errors, service errors (either transport), or bugs (500, logged). */
export function toProblem(err: unknown, service: string, logger: Logger): ProblemData {
  if (isAppError(err)) return problemFromAppError(err);
  const fromService = problemFromClientError(err, service);
  if (fromService) {
    if (fromService.status >= 500 && fromService.status !== 501)
      logger.warn({ service, status: fromService.status }, 'peer failed');
    return fromService;
  }
  logger.error({ err }, 'unhandled gateway error');
  return problem(500, 'Internal error', 'An unexpected error occurred');
}
