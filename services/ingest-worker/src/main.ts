import { capturesApi, graphApi, searchApi } from '@kg/contracts';
import { loadConfig } from '@kg/config';
import { createKafkaBus, kafkaConnection } from '@kg/bus';
import { createRedisKv } from '@kg/kv';
import { createLogger } from '@kg/logger';
import { failFast, runServiceProcess } from '@kg/service-kit';
import { createInternalTokens } from '@kg/tokens';
import { connectService } from '@kg/trpc';
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
  const bus = createKafkaBus({ ...kafkaConnection(config), clientId: 'ingest-worker', logger });
  const peer = <T extends typeof capturesApi | typeof graphApi | typeof searchApi>(
    name: string,
    url: string,
    contract: T,
  ) =>
    connectService('ingest-worker', name, contract, {
      kind: 'http',
      url: `${url}/trpc`,
      signer: internal.signer,
      timeoutMs: config.PEER_TIMEOUT_MS,
    });
  const kv = createRedisKv({ url: config.REDIS_URL, password: config.REDIS_PASSWORD });
  const captures = peer('captures', config.CAPTURES_URL, capturesApi);
  const graph = peer('graph', config.GRAPH_URL, graphApi);
  const search = peer('search', config.SEARCH_URL, searchApi);
  await runServiceProcess({
    argv: process.argv.slice(2),
    logger,
    database: null,
    bus,
    migrations: null,
    resources: [kv],
    createModule: () => createIngestWorkerModule({ bus, logger, captures, graph, search, kv, config }),
    port: config.PORT,
    host: config.HOST,
    metricsPort: config.METRICS_PORT,
    memoryReduceIntervalMs: config.MEMORY_REDUCE_INTERVAL_MS,
    shutdownDrainMs: config.SHUTDOWN_DRAIN_MS,
    verifier: internal.verifier,
  });
} catch (err) {
  failFast('ingest-worker', err);
}
