import type { Db } from '@kg/db';
import type { Embedder } from '@kg/embeddings';
import type { VectorIndex, VectorPoint } from '@kg/vectors';
import {
  embedNode,
  FILTER_KEYS,
  nodesCollection,
  PAYLOAD_VERSION,
  payloadOf,
  type NodeSource,
} from '../indexing/indexer';
import { indexingProgress } from '../store/documents';
import { liveDocumentsOf, markReindexed, tenantHasDocuments } from '../store/reindex';

/** Nodes read from graph, embedded and upserted together (graph's `search.nodes` takes 100 ids a call). */
export const REINDEX_BATCH = 100;

/** The collections search names for its node vectors (indexing/indexer.ts nodesCollection, and the older `kg_nodes_d<size>`). */
const NODES_COLLECTION_PREFIX = 'kg_nodes_';

/** The tenant has no document in search's projection and no vector: a mistyped id, or a tenant that never wrote a node. */
export class UnknownTenantError extends Error {
  constructor(readonly tenantId: string) {
    super(`tenant ${tenantId} is unknown to search: no node of it was ever indexed (check the tenant id)`);
    this.name = 'UnknownTenantError';
  }
}

export interface ReindexProgress {
  tenantId: string;
  /** Documents handled so far (embedded, or removed when graph no longer has the node). */
  done: number;
  total: number;
  /** Documents a second since the start. */
  ratePerSecond: number;
  elapsedMs: number;
}

export interface ReindexResult {
  tenantId: string;
  collection: string;
  /** The tenant's live documents in search's projection. */
  total: number;
  /** Vectors stored (one per node graph returned). */
  embedded: number;
  /** Vectors deleted: nodes graph no longer has, and points no node of the tenant matches. */
  removed: number;
  elapsedMs: number;
}

export interface ReindexDeps {
  db: Db;
  vectors: VectorIndex;
  /** The model search embeds with (EMBEDDINGS_*): its collection is the one rebuilt. */
  embedder: Pick<Embedder, 'model' | 'dimensions' | 'modelInput' | 'embed'>;
  /** Nodes by id from graph (graph-calls.ts graphNodeSource). */
  nodes: NodeSource;
  /** Default REINDEX_BATCH. */
  batchSize?: number;
  onProgress?: (progress: ReindexProgress) => void;
  now?: () => number;
}

/**
 * Rebuilds one tenant's vectors in the current model's collection from graph: every live
 * document of the tenant in search's projection is read from graph, embedded and upserted (in
 * batches, with progress), its document recorded as embedded; a node graph no longer returns
 * loses its vector, and every other point of the tenant that no node matches (a stray) is
 * deleted. The collection is made when missing (another vector size: VectorCollectionMismatchError).
 *
 * Safe beside running search services: their indexer may embed the same nodes meanwhile (same
 * vector); a node that changes during the re-index is made pending again (store/reindex.ts
 * markReindexed), so its newer version is embedded after the re-index's older one.
 */
export async function reindexTenant(deps: ReindexDeps, tenantId: string): Promise<ReindexResult> {
  const { model, dimensions } = deps.embedder;
  const now = deps.now ?? Date.now;
  const started = now();
  const collection = nodesCollection(model, dimensions);
  await deps.vectors.ensureCollection(collection, dimensions, { filterKeys: FILTER_KEYS });
  // Listed before the documents: a vector stored later (a node created meanwhile) is never taken for a stray.
  const before = new Set(await deps.vectors.ids(collection, { tenant_id: tenantId }));
  const docs = await liveDocumentsOf(deps.db, tenantId);
  if (docs.length === 0 && before.size === 0 && !(await tenantHasDocuments(deps.db, tenantId)))
    throw new UnknownTenantError(tenantId);

  const size = deps.batchSize ?? REINDEX_BATCH;
  const handled = new Set<string>();
  let embedded = 0;
  let removed = 0;
  for (let i = 0; i < docs.length; i += size) {
    const batch = docs.slice(i, i + size);
    const found = new Map(
      (
        await deps.nodes(
          tenantId,
          batch.map((d) => d.nodeId),
        )
      ).map((n) => [n.id, n]),
    );
    const points: VectorPoint[] = [];
    for (const doc of batch) {
      const node = found.get(doc.nodeId);
      if (node)
        points.push({
          id: node.id,
          vector: await embedNode(deps.embedder, node),
          payload: payloadOf(tenantId, node, model),
        });
    }
    await deps.vectors.upsert(collection, points);
    for (const doc of batch) {
      handled.add(doc.nodeId);
      if (found.has(doc.nodeId)) await markReindexed(deps.db, { tenantId, ...doc }, model, PAYLOAD_VERSION);
    }
    embedded += points.length;
    // Deleted in graph (its tombstone event on its way): no vector.
    const gone = batch.filter((d) => !found.has(d.nodeId)).map((d) => d.nodeId);
    await deps.vectors.delete(collection, gone);
    removed += gone.filter((id) => before.has(id)).length;
    const elapsedMs = now() - started;
    const done = i + batch.length;
    deps.onProgress?.({
      tenantId,
      done,
      total: docs.length,
      ratePerSecond: elapsedMs > 0 ? (done * 1000) / elapsedMs : done * 1000,
      elapsedMs,
    });
  }
  const strays = [...before].filter((id) => !handled.has(id));
  await deps.vectors.delete(collection, strays);
  removed += strays.length;
  return { tenantId, collection, total: docs.length, embedded, removed, elapsedMs: now() - started };
}

export type DropResult =
  | { current: string; dropped: string[] }
  | { current: string; dropped: []; incomplete: { total: number; embedded: number } };

/**
 * After a model change: deletes the node collections of other models (and the older
 * `kg_nodes_d<size>`), but only once the current model's collection is complete, every live
 * document of every tenant embedded with it; until then nothing is dropped and the counts
 * say how far it is. Collections not named by search are never touched.
 */
export async function dropOldCollections(deps: Pick<ReindexDeps, 'db' | 'vectors' | 'embedder'>): Promise<DropResult> {
  const current = nodesCollection(deps.embedder.model, deps.embedder.dimensions);
  const progress = await indexingProgress(deps.db, deps.embedder.model);
  if (progress.embedded < progress.total) return { current, dropped: [], incomplete: progress };
  const old = (await deps.vectors.collections()).filter((c) => c.startsWith(NODES_COLLECTION_PREFIX) && c !== current);
  for (const name of old) await deps.vectors.dropCollection(name);
  return { current, dropped: old };
}
