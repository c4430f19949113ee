import { TRPCClientError } from '@trpc/client';
import type { ProblemData } from './problem-data';

/**
 * Problem data from an error a service client raised. Errors without problem data
 * mean the service could not be reached or answered garbage: 503, never 500.
 */
export function problemFromClientError(err: unknown, service: string): ProblemData | null {
  if (!(err instanceof TRPCClientError)) return null;
  const data = (err.data ?? null) as { problem?: ProblemData } | null;
  if (data?.problem) return data.problem;
  return {
    status: 503,
    title: 'Service unavailable',
    detail: `The ${service} service is unavailable; try again shortly`,
  };
}
