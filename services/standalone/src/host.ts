import path from 'node:path';
import { createServer, type Server } from 'node:http';
import type { AnyRouter } from '@trpc/server';
import { authApi, capturesApi, graphApi, paraApi, searchApi, type ContractTree, type ServiceName } from '@kg/contracts';
import { openDatabase } from '@kg/db';
import { createFsBlobStore } from '@kg/blobs';
import { createFileDeadLetterStore, createMemoryBus } from '@kg/bus';
import { createMemoryKv } from '@kg/kv';
import type { Logger } from '@kg/logger';
import { createJwksCache } from '@kg/tokens';
import { connectService, type ServiceHandle } from '@kg/trpc';
import { createMetrics, listen, serveMetrics, startMemoryReducer } from '@kg/service-kit';
import {
  apiKeyCache,
  applyServerTimeouts,
  createEventFeed,
  createGatewayApp,
  feedFromBus,
  revocationsFromBus,
  type GatewayPeers,
} from '@kg/service-gateway/module';
import {
  authMigrations,
  createAuthModule,
  createOutboxTransport,
  createSmtpTransport,
  loadOrCreateKeyMaterial,
  oidcSettings,
} from '@kg/service-auth/module';
import { createGraphModule, graphMigrations } from '@kg/service-graph/module';
import { createParaModule, paraMigrations } from '@kg/service-para/module';
import { capturesMigrations, createCapturesModule } from '@kg/service-captures/module';
import { createSearchModule, searchMigrations } from '@kg/service-search/module';
import { createEmbedder } from '@kg/embeddings';
import { createMemoryVectorIndex } from '@kg/vectors';
import { createIngestWorkerModule } from '@kg/service-ingest-worker/module';
import type { StandaloneConfig } from './config';

export interface Host {
  server: Server;
  port: number;
  /** Port of the /metrics listener (METRICS_PORT). */
  metricsPort: number;
  close(): Promise<void>;
}

/**
 * In-process transport: the same typed client a remote peer gets, served by a local caller.
 * `logger` is the callee's: an unexpected error is logged by the service where it happened.
 */
const local = <T extends ContractTree>(
  caller: ServiceName,
  name: string,
  contract: T,
  router: AnyRouter,
  logger: Logger,
) => connectService(caller, name, contract, { kind: 'local', router, logger });

/**
 * Starts every service in this process on embedded stand-ins: PGlite under DATA_DIR
 * (same drizzle schema and migrations as Postgres), the in-process bus, in-memory kv.
 */
export async function startHost(config: StandaloneConfig, logger: Logger): Promise<Host> {
  const dataDir = path.resolve(config.DATA_DIR);
  const database = await openDatabase({
    dataDir,
    templateDir: config.PGLITE_TEMPLATE_DIR || undefined,
    sharedBuffersMb: config.PGLITE_SHARED_BUFFERS_MB,
    thread: config.PGLITE_THREAD,
    // As PGlite aborting in this thread would: nothing can answer without the database.
    onThreadExit: (err) => {
      logger.fatal({ err }, 'the embedded database stopped; the process ends');
      process.exit(1);
    },
  });
  for (const migrations of [authMigrations, paraMigrations, graphMigrations, searchMigrations, capturesMigrations])
    await database.migrate(migrations);
  // Dead letters are files under DATA_DIR, so `npm run dlq` can work while this process runs.
  const bus = createMemoryBus(logger.child({ component: 'bus' }), {
    deadLetters: createFileDeadLetterStore(path.join(dataDir, 'dead-letters')),
  });
  const kv = createMemoryKv();
  const child = (name: string) => logger.child({ service: name });

  const mail =
    config.MAIL_TRANSPORT === 'smtp' && config.SMTP_URL
      ? createSmtpTransport(config.SMTP_URL, config.MAIL_FROM)
      : createOutboxTransport(path.join(dataDir, 'outbox'));
  const auth = await createAuthModule({
    database,
    logger: child('auth'),
    keys: await loadOrCreateKeyMaterial(dataDir),
    mail,
    bus,
    outboxPollMs: config.OUTBOX_POLL_MS,
    publicUrl: config.PUBLIC_URL,
    pruneIntervalMs: config.PRUNE_INTERVAL_MS,
    accessTokenTtlSeconds: config.ACCESS_TOKEN_TTL_SECONDS,
    oidc: oidcSettings(config),
  });
  // PARA and graph call each other: PARA reaches graph through a handle bound once graph exists.
  let paraToGraph: ServiceHandle<typeof graphApi> | null = null;
  const para = await createParaModule({
    database,
    bus,
    logger: child('para'),
    kv,
    graph: { service: 'graph', as: (identity) => paraToGraph!.as(identity) },
  });
  const graph = await createGraphModule({
    database,
    bus,
    logger: child('graph'),
    kv,
    // The only process that writes the graph: its view cache needs no version read per request.
    singleWriter: true,
    para: local('graph', 'para', paraApi, para.router, child('para')),
  });
  paraToGraph = local('para', 'graph', graphApi, graph.router, child('graph'));
  // Uploaded files live under DATA_DIR/blobs in the embedded mode.
  const captures = await createCapturesModule({
    database,
    bus,
    blobs: createFsBlobStore(path.join(dataDir, 'blobs')),
    logger: child('captures'),
    outboxPollMs: config.OUTBOX_POLL_MS,
    webhooks: config,
    imports: config,
    // The only process writing the captures tables: the webhook fan-out may keep endpoints in memory.
    singleWriter: true,
  });
  const search = await createSearchModule({
    database,
    bus,
    logger: child('search'),
    vectors: createMemoryVectorIndex({ dir: path.join(dataDir, 'vectors') }),
    embedder: await createEmbedder(config),
    graph: local('search', 'graph', graphApi, graph.router, child('graph')),
    indexIntervalMs: config.INDEX_INTERVAL_MS,
    pruneIntervalMs: config.PRUNE_INTERVAL_MS,
    retentionMs: config.EVENT_RETENTION_HOURS * 3600_000,
    hybridSemanticWeight: config.HYBRID_SEMANTIC_WEIGHT,
    embeddingCacheSize: config.EMBEDDING_CACHE_SIZE,
    embedQueuePerTenant: config.EMBED_QUEUE_PER_TENANT,
    embedConcurrency: config.EMBED_CONCURRENCY,
  });
  // The ingest worker reaches captures (pipeline procedures) and graph (captures.upsertNode) in process.
  const ingest = await createIngestWorkerModule({
    bus,
    logger: child('ingest-worker'),
    captures: local('ingest-worker', 'captures', capturesApi, captures.router, child('captures')),
    graph: local('ingest-worker', 'graph', graphApi, graph.router, child('graph')),
    search: local('ingest-worker', 'search', searchApi, search.router, child('search')),
    kv,
    config,
  });
  const modules = [auth, para, graph, captures, search, ingest];
  for (const m of modules) await m.start();
  // GET /events: capture and node changes from the in-process bus, fanned out to the open streams.
  const events = createEventFeed();
  await feedFromBus(bus, events, 'gateway-events', child('gateway'));
  // Verified API keys, dropped at once when auth publishes their revocation (in-process bus).
  const apiKeys = apiKeyCache(config);
  await revocationsFromBus(bus, apiKeys, 'gateway-api-keys', child('gateway'));
  await bus.start();

  const peers: GatewayPeers = {
    auth: local('gateway', 'auth', authApi, auth.router, child('auth')),
    graph: local('gateway', 'graph', graphApi, graph.router, child('graph')),
    para: local('gateway', 'para', paraApi, para.router, child('para')),
    captures: local('gateway', 'captures', capturesApi, captures.router, child('captures')),
    search: local('gateway', 'search', searchApi, search.router, child('search')),
  };
  const jwks = createJwksCache(() => peers.auth.as(null).tokens.jwks({}) as never);
  const metrics = createMetrics('knowledge-graph');
  for (const m of modules) m.registerMetrics?.(metrics.registry);
  const app = createGatewayApp({
    metrics,
    config,
    peers,
    kv,
    logger: child('gateway'),
    keys: jwks.resolver,
    events,
    apiKeys,
    ready: async () => (await Promise.all(modules.map((m) => m.ready()))).every(Boolean),
    degraded: async () => (await Promise.all(modules.map((m) => m.degraded?.() ?? []))).flat(),
  });
  const server = createServer(app);
  await listen(server, { port: config.PORT, host: config.HOST });
  // As the gateway's own process: idle kept-alive connections outlive a load balancer's and
  // client pools' idle timeouts (ECONNRESET otherwise); uploads end by their own read deadline.
  applyServerTimeouts(server, config);
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.PORT;
  const metricsServer = await serveMetrics(metrics.registry, config.METRICS_PORT, config.HOST);
  logger.info({ port, metricsPort: metricsServer.port, dataDir }, 'knowledge graph listening (embedded mode)');
  const reducer = startMemoryReducer({
    intervalMs: config.MEMORY_REDUCE_INTERVAL_MS,
    registry: metrics.registry,
    logger,
  });

  return {
    server,
    port,
    metricsPort: metricsServer.port,
    async close() {
      reducer.stop();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await metricsServer.close();
      for (const m of [...modules].reverse()) await m.stop();
      await bus.stop();
      await kv.close();
      await database.close();
    },
  };
}
