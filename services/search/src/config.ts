import { z } from 'zod';
import { env } from '@kg/config';

/** Env of the search service when it runs as its own process. */
export const searchConfigSchema = z.object({
  ...env.serviceBase,
  PORT: env.port(3006),
  KAFKA_BROKERS: env.kafkaBrokers(),
});
export type SearchConfig = z.infer<typeof searchConfigSchema>;
