import { z } from 'zod';
import { env } from '@kg/config';
import { SEMANTIC_WEIGHT } from './ranking/fusion';
import { EMBEDDING_CACHE_SIZE } from './embedding-cache';
import { EMBED_CONCURRENCY, EMBED_QUEUE_PER_TENANT } from './embedder-queue';

/** Ranking, embedding-cache and embedder-queue settings, shared by the search process and the one-process host. */
export const rankingEnv = {
  /** Semantic weight of hybrid fusion, in [0, 1] (docs/API.md "Hybrid search"; keyword gets 1 − weight). */
  HYBRID_SEMANTIC_WEIGHT: z.coerce.number().min(0).max(1).default(SEMANTIC_WEIGHT),
  /** Vectors the embedding cache keeps (LRU; shared by indexing and queries, so a capture is embedded once). */
  EMBEDDING_CACHE_SIZE: env.positiveInt(EMBEDDING_CACHE_SIZE),
  /** Queries (semantic, hybrid, suggestions, context) a tenant may have waiting for the embedder; one more answers 429. */
  EMBED_QUEUE_PER_TENANT: env.positiveInt(EMBED_QUEUE_PER_TENANT),
  /** Embeddings run at once (1 for the local model, which runs one at a time; more for an OpenAI-compatible server). */
  EMBED_CONCURRENCY: env.positiveInt(EMBED_CONCURRENCY),
};

/** Env of the search service when it runs as its own process. */
export const searchConfigSchema = z
  .object({
    ...env.serviceBase,
    PORT: env.port(3006),
    ...env.kafka,
    ...env.embeddings,
    ...rankingEnv,
    /** Graph's base URL: node texts for indexing, keyword candidates for hybrid search. */
    GRAPH_URL: env.url(),
    PEER_TIMEOUT_MS: env.positiveInt(5000),
    /** Qdrant's URL; without it the in-process index persisted under VECTORS_DIR serves (one search process only). */
    QDRANT_URL: env.url().optional(),
    /** Qdrant's API key, sent as the `api-key` header; never logged. */
    QDRANT_API_KEY: z.string().min(1).optional(),
    /** Folder of the in-process vector index when QDRANT_URL is unset. */
    VECTORS_DIR: z.string().min(1).default('data/search-vectors'),
    /** Between two indexing passes when nothing is pending. */
    INDEX_INTERVAL_MS: env.positiveInt(200),
    /** Between two prunes of processed-event ledger rows and tombstones. */
    PRUNE_INTERVAL_MS: env.positiveInt(3600_000),
    /** Ledger rows and tombstones of deleted nodes are kept this many hours. */
    EVENT_RETENTION_HOURS: env.positiveInt(168),
  })
  .superRefine(env.checkKafka)
  .superRefine(env.checkEmbeddings);
export type SearchConfig = z.infer<typeof searchConfigSchema>;
