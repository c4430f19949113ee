import { fileURLToPath } from 'node:url';
import type { graphApi } from '@kg/contracts';
import type { EventBus } from '@kg/bus';
import type { Embedder } from '@kg/embeddings';
import type { ServiceHandle } from '@kg/trpc';
import {
  isVectorIndexUnavailable,
  VectorCollectionMismatchError,
  VectorIndexUnavailableError,
  type VectorIndex,
} from '@kg/vectors';
import { PROCESSED_EVENTS_RETENTION_MS, type Database } from '@kg/db';
import type { Logger } from '@kg/logger';
import type { ServiceModule } from '@kg/service-kit';
import { createSearchRouter } from './router';
import { nodeEventsSubscription } from './consumers/node-events';
import { createPruneJob } from './jobs/prune';
import { createIndexer, embedNode } from './indexing/indexer';
import { refillingGate } from './collection-refill';
import { createIndexWorker } from './indexing/worker';
import { createRanker } from './ranking/search';
import { graphKeywordSource, graphLinkSource, graphNodeSource } from './graph-calls';
import { createContextRanker } from './ranking/context';
import { createEmbeddingCache } from './embedding-cache';
import { createEmbedderQueue } from './embedder-queue';
import { createTenantEmbedder } from './tenant-embedder';
import { createVectorHealth, watchVectors, type CollectionGate } from './vector-health';

export { rankingEnv } from './config';

export const searchMigrations = {
  migrationsFolder: fileURLToPath(new URL('../drizzle', import.meta.url)),
  schema: 'search',
};

export interface SearchDeps {
  database: Database;
  bus: EventBus;
  logger: Logger;
  /** The search index: in-process (persisted under DATA_DIR) or Qdrant. */
  vectors: VectorIndex;
  embedder: Embedder;
  /** Graph: node texts for indexing, keyword candidates for hybrid search. */
  graph: ServiceHandle<typeof graphApi>;
  /** Between two indexing passes when idle (default 200 ms). */
  indexIntervalMs?: number;
  /** Between two prunes of the ledger and tombstones (default one hour). */
  pruneIntervalMs?: number;
  /** How long ledger rows and tombstones are kept (default seven days). */
  retentionMs?: number;
  /** Semantic weight of hybrid fusion (default SEMANTIC_WEIGHT, ranking/fusion.ts). */
  hybridSemanticWeight?: number;
  /** Vectors kept by the embedding cache the indexer and the ranker share (default EMBEDDING_CACHE_SIZE). */
  embeddingCacheSize?: number;
  /** Queries a tenant may have waiting for the embedder (default EMBED_QUEUE_PER_TENANT, embedder-queue.ts). */
  embedQueuePerTenant?: number;
  /** Embeddings run at once (default EMBED_CONCURRENCY). */
  embedConcurrency?: number;
  /** Waits of the indexer while the vector index is unavailable (default 1 s doubling to 30 s, indexing/worker.ts). */
  indexBackoffMs?: { first: number; max: number };
  /**
   * Called when the collection, made later than start-up (the index was unreachable then),
   * turns out to exist with other vectors: main.ts exits with that one line. Default: the
   * line is logged at error and indexing stops.
   */
  onFatal?: (err: SearchStartError) => void;
}

/**
 * The nodes collection exists with other vectors (size or distance) than the embedding model
 * needs: a misconfiguration the search service does not start with (main.ts prints this one
 * line and exits 1). Its message names the collection, the setting that differs, and what to do.
 */
export class SearchStartError extends Error {
  constructor(readonly mismatch: VectorCollectionMismatchError) {
    super(
      `${mismatch.message} (vector ${mismatch.setting} of collection ${mismatch.collection}; EMBEDDINGS_MODEL and QDRANT_URL name the model and the server)`,
    );
    this.name = 'SearchStartError';
  }
}

/**
 * The search service as a mountable module: router, the node-events consumer, the indexing
 * worker that embeds pending documents into the vector index, and the prune job.
 *
 * The vector index at start-up: its collection is made (or checked) once; one that exists
 * with other vectors stops the start (SearchStartError). An index that cannot answer
 * (Qdrant not up yet, a wrong API key) does not: its diagnostic is logged once, the service
 * starts and is ready (keyword search, writes), semantic search answers 503 and hybrid falls
 * back to keyword, and the collection is made at the first search or indexing pass once the
 * index answers (the indexer backs off meanwhile). /readyz reports the index as degraded.
 */
export async function createSearchModule(deps: SearchDeps): Promise<ServiceModule> {
  await deps.bus.subscribe(nodeEventsSubscription(deps.database.db));
  // One cache in front of the model, keyed by tenant: a capture's node is embedded once, whether
  // stage 5's similarity request (links.similar) or the indexer asks first. Behind it, one queue
  // fair between tenants: every embedding of every tenant waits there for its turn.
  const embedder = createTenantEmbedder(
    deps.embedder,
    createEmbeddingCache(deps.embeddingCacheSize),
    createEmbedderQueue({
      ...(deps.embedQueuePerTenant !== undefined ? { maxQueuedPerTenant: deps.embedQueuePerTenant } : {}),
      ...(deps.embedConcurrency !== undefined ? { concurrency: deps.embedConcurrency } : {}),
    }),
  );
  const nodes = graphNodeSource(deps.graph);
  const health = createVectorHealth(deps.logger);
  const vectors = watchVectors(deps.vectors, health);
  const indexer = createIndexer({
    db: deps.database.db,
    vectors,
    embedder,
    nodes,
    logger: deps.logger,
    gate: refillingGate(
      { db: deps.database.db, logger: deps.logger, model: deps.embedder.model, dimensions: deps.embedder.dimensions },
      vectors,
    ),
  });
  try {
    await indexer.ensureCollection();
  } catch (err) {
    if (err instanceof VectorCollectionMismatchError) throw new SearchStartError(err);
    if (!isVectorIndexUnavailable(err)) throw err;
    // Logged once by `health`; the indexer and the searches try again.
  }
  // A collection found later with other vectors (made while the index was unreachable at
  // start-up): indexing stops (worker.ts) and searches treat the index as unavailable (503,
  // hybrid's keyword fallback; never a 500, never a vector written), until a restart.
  let mismatch: VectorCollectionMismatchError | null = null;
  const misconfigured = (err: VectorCollectionMismatchError) =>
    new VectorIndexUnavailableError('misconfigured', new SearchStartError(err).message, { cause: err });
  const searchGate: CollectionGate = {
    collection: indexer.gate.collection,
    get ensured() {
      return indexer.gate.ensured;
    },
    async ensure() {
      if (mismatch) throw misconfigured(mismatch);
      try {
        await indexer.gate.ensure();
      } catch (err) {
        if (!(err instanceof VectorCollectionMismatchError)) throw err;
        mismatch ??= err; // the indexer's next pass logs it, once
        throw misconfigured(err);
      }
    },
  };
  const indexing = createIndexWorker(indexer, deps.indexIntervalMs ?? 200, deps.logger, {
    health,
    onMismatch: (err) => {
      mismatch ??= err;
      const fatal = new SearchStartError(err);
      if (deps.onFatal) deps.onFatal(fatal);
      else deps.logger.error({ setting: err.setting, collection: err.collection }, fatal.message);
    },
    ...(deps.indexBackoffMs
      ? { firstBackoffMs: deps.indexBackoffMs.first, maxBackoffMs: deps.indexBackoffMs.max }
      : {}),
  });
  const ranker = createRanker({
    vectors,
    gate: searchGate,
    health,
    embedder,
    keyword: graphKeywordSource(deps.graph),
    ...(deps.hybridSemanticWeight !== undefined ? { semanticWeight: deps.hybridSemanticWeight } : {}),
  });
  const context = createContextRanker({
    db: deps.database.db,
    ranker,
    nodes: graphNodeSource(deps.graph),
    links: graphLinkSource(deps.graph),
  });
  const prune = createPruneJob({
    db: deps.database.db,
    logger: deps.logger,
    intervalMs: deps.pruneIntervalMs ?? 3600_000,
    retentionMs: deps.retentionMs ?? PROCESSED_EVENTS_RETENTION_MS,
  });
  return {
    name: 'search',
    router: createSearchRouter(deps.database.db, ranker, context, deps.embedder.model, async (tenantId, nodeId) => {
      const [node] = await nodes(tenantId, [nodeId]);
      // Asked by the ingest worker for a capture's proposals: background work, like the indexer's.
      return node ? embedNode(embedder.for(tenantId, 'background'), node) : null;
    }),
    start: async () => {
      prune.start();
      indexing.start();
    },
    stop: async () => {
      await indexing.stop();
      await prune.stop();
      await deps.embedder.close();
    },
    // Ready with its database: a vector index that cannot answer degrades semantic search only
    // (keyword search, writes and hybrid's keyword fallback go on), so it never takes the
    // service out of rotation; /readyz names it in `degraded`.
    ready: () => deps.database.ping(),
    degraded: async () => (mismatch === null && (await deps.vectors.ready()) ? [] : ['vectors']),
  };
}
