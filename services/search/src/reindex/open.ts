import { graphApi } from '@kg/contracts';
import { openDatabase, postgresOptions } from '@kg/db';
import { createEmbedder } from '@kg/embeddings';
import { createInternalTokens } from '@kg/tokens';
import { connectService } from '@kg/trpc';
import { createMemoryVectorIndex, createQdrantVectorIndex } from '@kg/vectors';
import type { SearchConfig } from '../config';
import { graphNodeSource } from '../graph-calls';
import type { ReindexTarget } from './cli';

/** A URL's scheme, host and port only: never a password or a path with a key in it. */
const hostOf = (url: string) => {
  const u = new URL(url);
  return `${u.protocol}//${u.host}`;
};

/**
 * What `npm run reindex` works on in the distributed mode: the search service's own settings
 * (DATABASE_URL, GRAPH_URL, QDRANT_URL/QDRANT_API_KEY, INTERNAL_*, EMBEDDINGS_*), so it runs
 * beside the search replicas (e.g. `kubectl exec` in a search pod) and calls graph as search
 * does. Without QDRANT_URL it works on VECTORS_DIR, the one search process's own index: stop
 * that process first (its index is loaded at start and written by one process only).
 */
export async function openSearchTarget(config: SearchConfig): Promise<ReindexTarget> {
  const internal = await createInternalTokens('search', config.INTERNAL_SIGNING_KEY, config.INTERNAL_PUBLIC_KEYS);
  const database = await openDatabase(postgresOptions(config));
  try {
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
          timeoutMs: Math.max(config.PEER_TIMEOUT_MS, 30_000),
        })
      : createMemoryVectorIndex({ dir: config.VECTORS_DIR });
    const embedder = await createEmbedder(config);
    return {
      where: `distributed: graph ${hostOf(config.GRAPH_URL)}, vectors ${config.QDRANT_URL ? `Qdrant ${hostOf(config.QDRANT_URL)}` : `in-process index under ${config.VECTORS_DIR}`}`,
      db: database.db,
      vectors,
      embedder,
      nodes: graphNodeSource(graph),
      close: async () => {
        await embedder.close();
        await database.close();
      },
    };
  } catch (err) {
    await database.close();
    throw err;
  }
}
