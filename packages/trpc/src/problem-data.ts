import type { FieldError } from '@kg/contracts';

/** The problem data carried in every tRPC error shape, so any caller can rebuild RFC 9457 bodies. */
export interface ProblemData {
  status: number;
  title: string;
  detail: string;
  errors?: FieldError[];
  retryAfterSeconds?: number;
}
