import { z } from 'zod';
import { env } from '@kg/config';

/** Env of the captures service when it runs as its own process. */
export const capturesConfigSchema = z.object({ ...env.serviceBase, PORT: env.port(3005) });
export type CapturesConfig = z.infer<typeof capturesConfigSchema>;
