import type { Embedder } from '@kg/embeddings';
import type { EmbeddingCache, Embeds } from './embedding-cache';
import type { EmbedPriority, EmbedderQueue } from './embedder-queue';

export type { Embeds } from './embedding-cache';

/** The embedder as the search service uses it: every call on behalf of one tenant, at one priority. */
export interface TenantEmbedder {
  readonly model: string;
  readonly dimensions: number;
  /** The embedder of `tenantId`'s work of `priority`; `signal`: the caller gave up, drop its waiting work. */
  for(tenantId: string, priority: EmbedPriority, signal?: AbortSignal): Embeds;
}

/**
 * The model behind the tenant's own cache (embedding-cache.ts) and the fair queue
 * (embedder-queue.ts): a hit costs no turn; a miss waits for its tenant's turn. An interactive
 * call (one query text) is one job; a background call (a node's passages, up to 16) is one job
 * per text, so a query never waits behind a whole node.
 */
export function createTenantEmbedder(embedder: Embedder, cache: EmbeddingCache, queue: EmbedderQueue): TenantEmbedder {
  const shape = {
    model: embedder.model,
    dimensions: embedder.dimensions,
    ...(embedder.modelInput ? { modelInput: embedder.modelInput.bind(embedder) } : {}),
  };
  return {
    model: embedder.model,
    dimensions: embedder.dimensions,
    for(tenantId, priority, signal) {
      const queued: Embeds = {
        ...shape,
        embed: async (texts, kind) => {
          if (priority === 'interactive' || texts.length <= 1)
            return queue.run(tenantId, priority, () => embedder.embed(texts, kind), signal);
          return Promise.all(
            texts.map((text) =>
              queue.run(tenantId, priority, async () => (await embedder.embed([text], kind))[0]!, signal),
            ),
          );
        },
      };
      return { ...shape, embed: (texts, kind) => cache.embed(queued, texts, kind, tenantId) };
    },
  };
}

/** Every tenant and priority straight to `embedder`, no cache, no queue (unit tests of the ranker and the indexer). */
export const directEmbedder = (embedder: Embeds): TenantEmbedder => ({
  model: embedder.model,
  dimensions: embedder.dimensions,
  for: () => embedder,
});
