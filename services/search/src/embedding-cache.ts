import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import type { EmbedKind, Embedder } from '@kg/embeddings';

/** Vectors kept by default (EMBEDDING_CACHE_SIZE): 2,000 × 384 floats ≈ 3 MB. */
export const EMBEDDING_CACHE_SIZE = 2000;

/** What the cache needs of an embedder: its model, its model input, and `embed`. */
export type Embeds = Pick<Embedder, 'model' | 'dimensions' | 'modelInput' | 'embed'>;

/**
 * A bounded LRU of vectors keyed by the tenant, the model id and the sha256 of the model's
 * exact input (the text with whatever the kind changes, see Embedder.modelInput), with the
 * embeddings in flight: a second request of the same tenant for the same key waits for the
 * first instead of embedding again. Another tenant's request for the same text is a miss: a
 * fast answer never tells a tenant what another one embedded (issue 21, item 7). All tenants
 * share the one bound. No expiry: the same model and the same input make the same vector.
 * Failures are not kept.
 */
export function createEmbeddingCache(max = EMBEDDING_CACHE_SIZE) {
  const vectors = new LRUCache<string, Float32Array>({ max });
  const inFlight = new Map<string, Promise<Float32Array>>();
  let hits = 0;
  let misses = 0;

  /**
   * The vectors of `texts` by `embedder` for `tenantId`, in order; only the ones neither kept
   * nor in flight for that tenant are embedded (in one call).
   */
  async function embed(embedder: Embeds, texts: string[], kind: EmbedKind, tenantId: string): Promise<Float32Array[]> {
    const keys = texts.map((text) =>
      createHash('sha256')
        .update(tenantId)
        .update('\u0000')
        .update(embedder.model)
        .update('\u0000')
        .update(embedder.modelInput ? embedder.modelInput(text, kind) : `${kind}\u0000${text}`)
        .digest('base64url'),
    );
    const answers: Promise<Float32Array>[] = [];
    const missing = new Map<
      string,
      { text: string; resolve: (v: Float32Array) => void; reject: (e: unknown) => void }
    >();
    keys.forEach((key, i) => {
      const kept = vectors.get(key);
      if (kept) {
        hits += 1;
        answers.push(Promise.resolve(kept));
        return;
      }
      let pending = inFlight.get(key);
      if (pending) hits += 1;
      else {
        misses += 1;
        pending = new Promise<Float32Array>((resolve, reject) =>
          missing.set(key, { text: texts[i]!, resolve, reject }),
        );
        inFlight.set(key, pending);
      }
      answers.push(pending);
    });
    if (missing.size > 0) {
      const entries = [...missing];
      try {
        const made = await embedder.embed(
          entries.map(([, m]) => m.text),
          kind,
        );
        entries.forEach(([key, m], i) => {
          inFlight.delete(key);
          vectors.set(key, made[i]!);
          m.resolve(made[i]!);
        });
      } catch (err) {
        for (const [key, m] of entries) {
          inFlight.delete(key);
          m.reject(err);
        }
      }
    }
    // Copies: a caller changing its vector must not change the kept one.
    return (await Promise.all(answers)).map((v) => v.slice());
  }

  return {
    embed,
    /** Vectors kept now. */
    get size() {
      return vectors.size;
    },
    /** Texts answered from the cache or from an embedding in flight, and texts embedded. */
    stats: () => ({ hits, misses }),
  };
}
export type EmbeddingCache = ReturnType<typeof createEmbeddingCache>;
