import { createHash } from 'node:crypto';
import type { Db } from '@kg/db';
import type { Logger } from '@kg/logger';
import { isVectorIndexUnavailable, type VectorIndex, type VectorPoint } from '@kg/vectors';
import { createCollectionGate, type CollectionGate } from '../vector-health';
import {
  findPendingDocuments,
  markEmbedded,
  markEmbeddedMany,
  recordEmbedFailure,
  requeueDocument,
  type PendingDocument,
} from '../store/documents';
import type { Embeds, TenantEmbedder } from '../tenant-embedder';
import { nodePassages, poolVectors } from './text';
import { describeError, EMBED_MAX_FAILURES, planAfterFailure } from './retry';

/**
 * The vector collection of node documents for a model (all tenants; `tenant_id` is the tenant
 * index): the model's name, shortened, and a hash of it, so that another model, even one of the
 * same vector size, gets a collection of its own (never mixed vectors), e.g.
 * `kg_nodes_all-minilm-l6-v2_1c5f0e2a9b_d384`. A model change makes every document pending
 * (its recorded model differs), so the indexer fills the new collection by itself.
 */
export function nodesCollection(model: string, dimensions: number): string {
  const name = (model.split('/').pop() ?? '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 32);
  const hash = createHash('sha256').update(model).digest('hex').slice(0, 10);
  return `kg_nodes_${name ? `${name}_` : ''}${hash}_d${dimensions}`;
}

/** What the indexer reads of a node (graph's `search.nodes`). */
export interface IndexedNode {
  id: string;
  title: string;
  summary: string;
  body_markdown: string;
  status: string;
  para_item_ids: string[];
  /** The capture the node was made from; null for a node made by hand. */
  source_capture_id: string | null;
  updated_at: string;
}

/** Reads nodes of one tenant by id from graph; ids it does not know are left out. */
export type NodeSource = (tenantId: string, ids: string[]) => Promise<IndexedNode[]>;

export interface IndexerDeps {
  db: Db;
  vectors: VectorIndex;
  embedder: TenantEmbedder;
  nodes: NodeSource;
  logger: Logger;
  /** The nodes collection, made once (default: one of its own over `vectors`). */
  gate?: CollectionGate;
  /** Documents taken per pass (default 16). */
  batchSize?: number;
  /** A document graph did not return is retried after this long (default 30 s). */
  retryAfterMs?: number;
  /** The clock (tests). */
  now?: () => number;
}

/**
 * A node's vector as the index holds it: its passages (nodePassages; its id when it has no
 * text) embedded as passages and pooled. links.similar scores by this same vector.
 */
export async function embedNode(embedder: Embeds, node: IndexedNode): Promise<number[]> {
  const passages = nodePassages(node);
  return poolVectors(await embedder.embed(passages.length > 0 ? passages : [node.id], 'passage'));
}

/**
 * The layout of the payload below. Raise it when the payload gains a key: every point stored
 * with an older layout then gets its payload rewritten by the indexer (setPayload, no
 * re-embedding). 2: `source_capture_id` added. 3: the collection is named per model
 * (nodesCollection): the points of the older `kg_nodes_d<size>` are not in it, so each
 * document's setPayload fails and the node is embedded again into the new collection.
 */
export const PAYLOAD_VERSION = 3;

/**
 * The payload keys search filters on (ranking/search.ts vectorFilter), besides `tenant_id`:
 * the collection gets an index on each (Qdrant: a keyword index).
 */
export const FILTER_KEYS = ['model', 'status', 'para_item_ids', 'orphan', 'source_capture_id'] as const;
export type FilterKey = (typeof FILTER_KEYS)[number];

/** The filter payload stored with each vector (see docs/API.md "Semantic search"). */
export function payloadOf(tenantId: string, node: IndexedNode, model: string): VectorPoint['payload'] {
  return {
    tenant_id: tenantId,
    status: node.status,
    para_item_ids: node.para_item_ids,
    orphan: node.para_item_ids.length === 0 ? 'true' : 'false',
    source_capture_id: node.source_capture_id,
    updated_at: node.updated_at,
    model,
  };
}

/** Documents grouped by tenant, in the order first seen. */
function byTenantOf(docs: PendingDocument[]): Map<string, PendingDocument[]> {
  const byTenant = new Map<string, PendingDocument[]>();
  for (const doc of docs) byTenant.set(doc.tenantId, [...(byTenant.get(doc.tenantId) ?? []), doc]);
  return byTenant;
}

/**
 * One indexing pass: takes the oldest pending documents (no vector, an older version, or
 * another model's vector; or a tombstone whose vector is still indexed), reads the live ones
 * from graph, embeds each as passages pooled into one vector, and upserts or deletes points.
 * A point whose vector is current but whose payload layout is older (PAYLOAD_VERSION) only has
 * its payload rewritten.
 * The document row then records (version, model); a document that changed meanwhile stays
 * pending. Passes run off the request path (see indexing/worker.ts). A model change makes
 * every document pending, so re-embedding is this same loop, resumable by construction.
 */
export function createIndexer(deps: IndexerDeps) {
  const batchSize = deps.batchSize ?? 16;
  const collection = nodesCollection(deps.embedder.model, deps.embedder.dimensions);
  const gate =
    deps.gate ?? createCollectionGate(deps.vectors, collection, deps.embedder.dimensions, { filterKeys: FILTER_KEYS });
  const retryAfterMs = deps.retryAfterMs ?? 30_000;
  /** Documents graph did not return (deleted meanwhile: their tombstone is on its way). */
  const parked = new Map<string, number>();
  const key = (d: PendingDocument) => `${d.tenantId}/${d.nodeId}/${d.version}`;
  /**
   * Nodes a pass of this indexer holds: passes may run at once (indexing/worker.ts), each takes
   * others, so a node is never embedded twice at once here.
   */
  const inFlight = new Set<string>();
  const nodeKey = (d: PendingDocument) => `${d.tenantId}/${d.nodeId}`;

  const now = deps.now ?? Date.now;

  /**
   * Records a failed embedding of `doc` with the next attempt's time (indexing/retry.ts), logged
   * once, at the first failure of the version, with the node's id (never its text). Returns
   * false when the pass should stop.
   */
  async function embedFailed(doc: PendingDocument, err: unknown): Promise<boolean> {
    const plan = planAfterFailure(doc.failures, err, now());
    await recordEmbedFailure(deps.db, doc, deps.embedder.model, plan.failures, plan.retryAt);
    if (plan.failures === 1)
      deps.logger.warn(
        {
          tenantId: doc.tenantId,
          nodeId: doc.nodeId,
          version: doc.version,
          model: deps.embedder.model,
          error: describeError(err),
          maxFailures: EMBED_MAX_FAILURES,
        },
        'search indexing: embedding a node failed; retrying with backoff',
      );
    return !plan.stopPass;
  }

  /**
   * Embeds a tenant's nodes of one pass together and stores their vectors: the texts go to the
   * embedder at once (its queue feeds the model text after text, no gap while this thread
   * stores a vector), then one upsert of the points made and one statement recording them (on
   * the embedded database a background statement waits its turn behind requests: 2 for the
   * batch instead of 2 a node). A node whose embedding failed records its own failure. Returns
   * false when the pass should stop.
   */
  async function embedMany(tenantId: string, items: { doc: PendingDocument; node: IndexedNode }[]): Promise<boolean> {
    if (items.length === 0) return true;
    const embeds = deps.embedder.for(tenantId, 'background');
    const settled = await Promise.allSettled(items.map(({ node }) => embedNode(embeds, node)));
    const made = items.flatMap((item, i) => {
      const r = settled[i]!;
      return r.status === 'fulfilled' ? [{ ...item, vector: r.value }] : [];
    });
    if (made.length > 0) {
      await deps.vectors.upsert(
        collection,
        made.map(({ doc, node, vector }) => ({
          id: doc.nodeId,
          vector,
          payload: payloadOf(tenantId, node, deps.embedder.model),
        })),
      );
      const marked = await markEmbeddedMany(
        deps.db,
        tenantId,
        made.map(({ doc }) => doc),
        deps.embedder.model,
        PAYLOAD_VERSION,
      );
      for (const { doc } of made) if (!marked.has(doc.nodeId)) await requeueDocument(deps.db, tenantId, doc.nodeId);
    }
    for (const [i, r] of settled.entries())
      if (r.status === 'rejected' && !(await embedFailed(items[i]!.doc, r.reason))) return false;
    return true;
  }

  /**
   * Rewrites the payload of a point whose vector is current but whose payload has an older
   * layout (PAYLOAD_VERSION). When the point is not in the vector index after all (an index
   * rebuilt or lost, or an older collection), the node is embedded again instead; when the
   * index cannot answer (VectorIndexUnavailableError), the error ends the pass and the document
   * stays pending (re-embedding could not be stored either).
   */
  async function refreshPayload(doc: PendingDocument, node: IndexedNode): Promise<boolean> {
    const { tenant_id: _tenant, ...payload } = payloadOf(doc.tenantId, node, deps.embedder.model);
    try {
      await deps.vectors.setPayload(collection, doc.nodeId, payload);
    } catch (err) {
      if (isVectorIndexUnavailable(err)) throw err;
      deps.logger.info(
        { tenantId: doc.tenantId, nodeId: doc.nodeId, error: describeError(err) },
        'search indexing: updating a payload failed; embedding the node again',
      );
      return embedMany(doc.tenantId, [{ doc, node }]);
    }
    await recorded(doc);
    return true;
  }

  /**
   * Records a payload rewrite of `doc`; when the document changed meanwhile, makes it pending
   * again (requeueDocument): with several search replicas indexing from one database, the write
   * just made may have replaced a newer one.
   */
  async function recorded(doc: PendingDocument): Promise<void> {
    if (!(await markEmbedded(deps.db, doc.tenantId, doc.nodeId, doc.version, deps.embedder.model, PAYLOAD_VERSION)))
      await requeueDocument(deps.db, doc.tenantId, doc.nodeId);
  }

  /** Returns how many documents it handled (embedded, removed, failed, or parked for a retry). */
  async function runPass(): Promise<number> {
    await gate.ensure();
    const taken = taking.then(take, take);
    taking = taken.catch(() => undefined);
    const { batch, at } = await taken;
    try {
      return await handle(batch, at);
    } finally {
      for (const doc of batch) inFlight.delete(nodeKey(doc));
    }
  }

  /** Passes take their documents one after another (runPass), so two never take the same. */
  let taking: Promise<unknown> = Promise.resolve();
  /** The oldest pending documents that are neither parked nor held by a running pass, now held. */
  async function take(): Promise<{ batch: PendingDocument[]; at: number }> {
    const at = now();
    for (const [k, until] of parked) if (until <= at) parked.delete(k);
    const limit = batchSize + parked.size + inFlight.size;
    const pending = (
      await findPendingDocuments(deps.db, deps.embedder.model, PAYLOAD_VERSION, limit, {
        now: new Date(at),
        maxFailures: EMBED_MAX_FAILURES,
      })
    ).filter((d) => !parked.has(key(d)) && !inFlight.has(nodeKey(d)));
    const batch = pending.slice(0, batchSize);
    for (const doc of batch) inFlight.add(nodeKey(doc));
    return { batch, at };
  }

  /** Indexes the documents of one pass (taken by runPass); returns how many it handled, 0 to stop. */
  async function handle(batch: PendingDocument[], at: number): Promise<number> {
    const tombstones = batch.filter((d) => d.deleted);
    if (tombstones.length > 0) {
      await deps.vectors.delete(
        collection,
        tombstones.map((d) => d.nodeId),
      );
      for (const [tenantId, docs] of byTenantOf(tombstones)) {
        const marked = await markEmbeddedMany(deps.db, tenantId, docs, null, null);
        for (const doc of docs) if (!marked.has(doc.nodeId)) await requeueDocument(deps.db, tenantId, doc.nodeId);
      }
    }
    for (const [tenantId, docs] of byTenantOf(batch.filter((d) => !d.deleted))) {
      const nodes = new Map(
        (
          await deps.nodes(
            tenantId,
            docs.map((d) => d.nodeId),
          )
        ).map((n) => [n.id, n]),
      );
      const toEmbed: { doc: PendingDocument; node: IndexedNode }[] = [];
      for (const doc of docs) {
        const node = nodes.get(doc.nodeId);
        if (!node) parked.set(key(doc), at + retryAfterMs);
        else if (!doc.payloadOnly) toEmbed.push({ doc, node });
        else if (!(await refreshPayload(doc, node))) return 0;
      }
      if (!(await embedMany(tenantId, toEmbed))) return 0;
    }
    return batch.length;
  }

  return {
    runPass,
    /** Makes (or checks) the collection with an index on each FILTER_KEYS entry; once it succeeded, a no-op. */
    ensureCollection: () => gate.ensure(),
    gate,
    collection,
  };
}
export type Indexer = ReturnType<typeof createIndexer>;
