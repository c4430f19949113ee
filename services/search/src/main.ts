import { graphApi } from '@kg/contracts';
import { loadConfig } from '@kg/config';
import { createKafkaBus, kafkaConnection } from '@kg/bus';
import { openDatabase, postgresOptions } from '@kg/db';
import { createLogger } from '@kg/logger';
import { failFast, migrateIfAsked, runServiceProcess } from '@kg/service-kit';
import { createInternalTokens } from '@kg/tokens';
import { connectService } from '@kg/trpc';
import { createEmbedder } from '@kg/embeddings';
import { createMemoryVectorIndex, createQdrantVectorIndex } from '@kg/vectors';
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
  const graph = connectService('search', 'graph', graphApi, {
    kind: 'http',
    url: `${config.GRAPH_URL}/trpc`,
    signer: internal.signer,
    timeoutMs: config.PEER_TIMEOUT_MS,
  });
  const vectors = config.QDRANT_URL
    ? createQdrantVectorIndex({
        url: config.QDRANT_URL,
        ...(config.QDRANT_API_KEY ? { apiKey: config.QDRANT_API_KEY } : {}),
        timeoutMs: config.PEER_TIMEOUT_MS,
      })
    : createMemoryVectorIndex({ dir: config.VECTORS_DIR });
  const embedder = await createEmbedder(config);
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
        vectors,
        embedder,
        graph,
        indexIntervalMs: config.INDEX_INTERVAL_MS,
        pruneIntervalMs: config.PRUNE_INTERVAL_MS,
        retentionMs: config.EVENT_RETENTION_HOURS * 3600_000,
        hybridSemanticWeight: config.HYBRID_SEMANTIC_WEIGHT,
        embeddingCacheSize: config.EMBEDDING_CACHE_SIZE,
        embedQueuePerTenant: config.EMBED_QUEUE_PER_TENANT,
        embedConcurrency: config.EMBED_CONCURRENCY,
        onFatal: (err) => failFast('search', err),
      }),
    port: config.PORT,
    host: config.HOST,
    metricsPort: config.METRICS_PORT,
    memoryReduceIntervalMs: config.MEMORY_REDUCE_INTERVAL_MS,
    shutdownDrainMs: config.SHUTDOWN_DRAIN_MS,
    verifier: internal.verifier,
  });
} catch (err) {
  failFast('search', err);
}
