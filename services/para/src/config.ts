import { z } from 'zod';
import { env } from '@kg/config';

/** Env of the para service when it runs as its own process. */
export const paraConfigSchema = z.object({
  ...env.serviceBase,
  PORT: env.port(3004),
  /** The graph service, which owns the node↔item associations. */
  GRAPH_URL: env.url(),
  PEER_TIMEOUT_MS: env.positiveInt(5000),
});
export type ParaConfig = z.infer<typeof paraConfigSchema>;
