import { graphApi } from '@kg/contracts';
import { loadConfig } from '@kg/config';
import { createKafkaBus, kafkaConnection } from '@kg/bus';
import { createRedisKv } from '@kg/kv';
import { openDatabase, postgresOptions } from '@kg/db';
import { createLogger } from '@kg/logger';
import { failFast, migrateIfAsked, runServiceProcess } from '@kg/service-kit';
import { createInternalTokens } from '@kg/tokens';
import { connectService } from '@kg/trpc';
import { paraConfigSchema } from './config';
import { createParaModule, paraMigrations } from './module';

try {
  // `migrate` needs the database only: it runs before (and without) the full config.
  await migrateIfAsked('para', process.argv.slice(2), paraMigrations);
  const config = loadConfig('para', paraConfigSchema);
  const logger = createLogger('para', config.LOG_LEVEL);
  // Its own signing key (checked at start-up) and the public keys of the services that call it.
  const internal = await createInternalTokens('para', config.INTERNAL_SIGNING_KEY, config.INTERNAL_PUBLIC_KEYS);
  const database = await openDatabase(postgresOptions(config));
  const kv = createRedisKv({ url: config.REDIS_URL, password: config.REDIS_PASSWORD });
  const bus = createKafkaBus({ ...kafkaConnection(config), clientId: 'para', logger });
  const graph = connectService('para', 'graph', graphApi, {
    kind: 'http',
    url: `${config.GRAPH_URL}/trpc`,
    signer: internal.signer,
    timeoutMs: config.PEER_TIMEOUT_MS,
  });
  await runServiceProcess({
    argv: process.argv.slice(2),
    logger,
    database,
    bus,
    resources: [kv],
    migrations: paraMigrations,
    createModule: () => createParaModule({ database, bus, logger, graph, kv }),
    port: config.PORT,
    host: config.HOST,
    metricsPort: config.METRICS_PORT,
    memoryReduceIntervalMs: config.MEMORY_REDUCE_INTERVAL_MS,
    shutdownDrainMs: config.SHUTDOWN_DRAIN_MS,
    verifier: internal.verifier,
  });
} catch (err) {
  failFast('para', err);
}
