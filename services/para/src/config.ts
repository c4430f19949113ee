import { z } from 'zod';
import { env } from '@kg/config';

/** Env of the para service when it runs as its own process. */
export const paraConfigSchema = z
  .object({
    ...env.serviceBase,
    PORT: env.port(3004),
    /** The graph service, which owns the node↔item associations and scores orphan nodes. */
    GRAPH_URL: env.url(),
    /** The tenants' graph-view tokens, shared with the graph service and the gateway (REDIS_URL, REDIS_PASSWORD). */
    ...env.redis,
    /** Reclassification jobs travel on kg.para.jobs.v1. */
    ...env.kafka,
    PEER_TIMEOUT_MS: env.positiveInt(5000),
  })
  .superRefine(env.checkKafka);
export type ParaConfig = z.infer<typeof paraConfigSchema>;
