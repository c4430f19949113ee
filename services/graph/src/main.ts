import { paraApi } from '@kg/contracts';
import { loadConfig } from '@kg/config';
import { createKafkaBus, kafkaConnection } from '@kg/bus';
import { openDatabase, postgresOptions } from '@kg/db';
import { createRedisKv } from '@kg/kv';
import { createLogger } from '@kg/logger';
import { failFast, migrateIfAsked, runServiceProcess } from '@kg/service-kit';
import { createInternalTokens } from '@kg/tokens';
import { connectService } from '@kg/trpc';
import { graphConfigSchema } from './config';
import { createGraphModule, graphMigrations } from './module';

try {
  // `migrate` needs the database only: it runs before (and without) the full config.
  await migrateIfAsked('graph', process.argv.slice(2), graphMigrations);
  const config = loadConfig('graph', graphConfigSchema);
  const logger = createLogger('graph', config.LOG_LEVEL);
  const internal = await createInternalTokens('graph', config.INTERNAL_SIGNING_KEY, config.INTERNAL_PUBLIC_KEYS);
  const database = await openDatabase(postgresOptions(config));
  const kv = createRedisKv({ url: config.REDIS_URL, password: config.REDIS_PASSWORD });
  const bus = createKafkaBus({ ...kafkaConnection(config), clientId: 'graph', logger });
  const para = connectService('graph', 'para', paraApi, {
    kind: 'http',
    url: `${config.PARA_URL}/trpc`,
    signer: internal.signer,
    timeoutMs: config.PEER_TIMEOUT_MS,
  });
  await runServiceProcess({
    argv: process.argv.slice(2),
    logger,
    database,
    bus,
    resources: [kv],
    migrations: graphMigrations,
    createModule: () => createGraphModule({ database, bus, logger, para, kv }),
    port: config.PORT,
    host: config.HOST,
    metricsPort: config.METRICS_PORT,
    memoryReduceIntervalMs: config.MEMORY_REDUCE_INTERVAL_MS,
    shutdownDrainMs: config.SHUTDOWN_DRAIN_MS,
    verifier: internal.verifier,
  });
} catch (err) {
  failFast('graph', err);
}
