import { z } from 'zod';
import { env } from '@kg/config';

/** Env of the search service when it runs as its own process. */
export const searchConfigSchema = z
  .object({
    ...env.serviceBase,
    PORT: env.port(3006),
    ...env.kafka,
    /** Between two prunes of processed-event ledger rows and tombstones. */
    PRUNE_INTERVAL_MS: env.positiveInt(3600_000),
    /** Ledger rows and tombstones of deleted nodes are kept this many hours. */
    EVENT_RETENTION_HOURS: env.positiveInt(168),
  })
  .superRefine(env.checkKafka);
export type SearchConfig = z.infer<typeof searchConfigSchema>;
