import { z } from 'zod';
import { env } from '@kg/config';

/** Env of the graph service when it runs as its own process. */
export const graphConfigSchema = z
  .object({
    ...env.serviceBase,
    PORT: env.port(3002),
    PARA_URL: env.url(),
    ...env.kafka,
    /** Server-side pagination cursors, shared by every graph replica (REDIS_URL, REDIS_PASSWORD). */
    ...env.redis,
    PEER_TIMEOUT_MS: env.positiveInt(5000),
  })
  .superRefine(env.checkKafka);
export type GraphConfig = z.infer<typeof graphConfigSchema>;
