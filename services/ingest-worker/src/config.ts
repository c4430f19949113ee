import { z } from 'zod';
import { env } from '@kg/config';

/** Env of the ingest-worker service when it runs as its own process. */
export const ingestWorkerConfigSchema = z.object({ ...env.serviceBase, PORT: env.port(3007) });
export type IngestWorkerConfig = z.infer<typeof ingestWorkerConfigSchema>;
