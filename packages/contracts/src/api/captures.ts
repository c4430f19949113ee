import { z } from 'zod';
import { query } from '../procedure';
import { serviceInfoApi } from './service-info';

/** The captures service's tRPC contract (grows with the captures issue). */
export const capturesApi = {
  ...serviceInfoApi,
  /** Capture counts of the caller's tenant, for GET /graph-health. */
  stats: query('tenant', z.object({}), z.object({ total: z.number().int(), pending: z.number().int() }), ['gateway']),
} as const;
