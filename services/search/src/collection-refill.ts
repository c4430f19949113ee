import type { Db } from '@kg/db';
import type { Logger } from '@kg/logger';
import type { VectorIndex } from '@kg/vectors';
import { FILTER_KEYS, nodesCollection } from './indexing/indexer';
import { forgetEmbeddings } from './store/reindex';
import { createCollectionGate, type CollectionGate } from './vector-health';

/**
 * The nodes collection made (or checked) once, as vector-health.ts's gate does, and refilled
 * when it had to be made while search's records say nodes are indexed in it: the collection
 * was lost (a Qdrant volume replaced, an in-process index's files gone with a pod's /tmp), so
 * every node of the model becomes pending again (one warning) instead of semantic search
 * answering from an empty collection. A model's first collection has nothing to refill. The
 * gate counts as made only once the refill is recorded (a failed one is tried again).
 */
export function refillingGate(
  deps: { db: Db; logger: Logger; model: string; dimensions: number },
  vectors: VectorIndex,
): CollectionGate {
  const collection = nodesCollection(deps.model, deps.dimensions);
  const gate = createCollectionGate(vectors, collection, deps.dimensions, { filterKeys: FILTER_KEYS });
  let ensured = false;
  let made = false; // made by this gate: its refill is due
  let attempt: Promise<void> | null = null;
  return {
    collection,
    get ensured() {
      return ensured;
    },
    ensure() {
      if (ensured) return Promise.resolve();
      attempt ??= (async () => {
        if (!gate.ensured) {
          const existed = (await vectors.collections()).includes(collection);
          await gate.ensure();
          made = !existed;
        }
        if (made) {
          const nodes = await forgetEmbeddings(deps.db, deps.model);
          made = false;
          if (nodes > 0)
            deps.logger.warn(
              { collection, nodes },
              'search: the vector collection was missing and is made anew; its nodes are embedded again',
            );
        }
        ensured = true;
      })().finally(() => {
        attempt = null;
      });
      return attempt;
    },
  };
}
