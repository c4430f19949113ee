import { loadConfig } from '@kg/config';
import { openDatabase, postgresOptions } from '@kg/db';
import { createLogger } from '@kg/logger';
import { failFast, runServiceProcess } from '@kg/service-kit';
import { createInternalTokens } from '@kg/tokens';
import { ingestWorkerConfigSchema } from './config';
import { createIngestWorkerModule } from './module';

try {
  const config = loadConfig('ingest-worker', ingestWorkerConfigSchema);
  const logger = createLogger('ingest-worker', config.LOG_LEVEL);
  // Its own signing key (checked at start-up) and the public keys of the services that call it.
  const internal = await createInternalTokens(
    'ingest-worker',
    config.INTERNAL_SIGNING_KEY,
    config.INTERNAL_PUBLIC_KEYS,
  );
  const database = await openDatabase(postgresOptions(config));
  await runServiceProcess({
    argv: process.argv.slice(2),
    logger,
    database,
    migrations: null,
    createModule: () => createIngestWorkerModule({ database, logger }),
    port: config.PORT,
    host: config.HOST,
    metricsPort: config.METRICS_PORT,
    verifier: internal.verifier,
  });
} catch (err) {
  failFast('ingest-worker', err);
}
