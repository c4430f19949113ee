import { loadConfig } from '@kg/config';
import { createKafkaBus, kafkaConnection } from '@kg/bus';
import { openDatabase, postgresOptions } from '@kg/db';
import { createLogger } from '@kg/logger';
import { failFast, migrateIfAsked, runServiceProcess } from '@kg/service-kit';
import { createInternalTokens } from '@kg/tokens';
import { searchConfigSchema } from './config';
import { createSearchModule, searchMigrations } from './module';

try {
  // `migrate` needs the database only: it runs before (and without) the full config.
  await migrateIfAsked('search', process.argv.slice(2), searchMigrations);
  const config = loadConfig('search', searchConfigSchema);
  const logger = createLogger('search', config.LOG_LEVEL);
  // Its own signing key (checked at start-up) and the public keys of the services that call it.
  const internal = await createInternalTokens('search', config.INTERNAL_SIGNING_KEY, config.INTERNAL_PUBLIC_KEYS);
  const database = await openDatabase(postgresOptions(config));
  const bus = createKafkaBus({ ...kafkaConnection(config), clientId: 'search', logger });
  await runServiceProcess({
    argv: process.argv.slice(2),
    logger,
    database,
    bus,
    migrations: searchMigrations,
    createModule: () =>
      createSearchModule({
        database,
        bus,
        logger,
        pruneIntervalMs: config.PRUNE_INTERVAL_MS,
        retentionMs: config.EVENT_RETENTION_HOURS * 3600_000,
      }),
    port: config.PORT,
    host: config.HOST,
    metricsPort: config.METRICS_PORT,
    verifier: internal.verifier,
  });
} catch (err) {
  failFast('search', err);
}
