import { z } from 'zod';
import { env } from '@kg/config';

/** Env of the para service when it runs as its own process. */
export const paraConfigSchema = z.object({ ...env.serviceBase, PORT: env.port(3004) });
export type ParaConfig = z.infer<typeof paraConfigSchema>;
