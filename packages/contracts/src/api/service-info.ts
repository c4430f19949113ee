import { z } from 'zod';
import { query } from '../procedure';

export const ServiceInfo = z.object({ service: z.string(), version: z.string(), features: z.array(z.string()) });

/** What every service answers about itself; the only procedure of services whose features land later. */
export const serviceInfoApi = {
  info: query('service', z.object({}), ServiceInfo, ['gateway']),
} as const;
