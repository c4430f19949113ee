import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NodeEvent } from '@kg/contracts';
import { newEventId } from '@kg/bus';
import { newId, openDatabase, type Database } from '@kg/db';
import { createLogger } from '@kg/logger';
import { createMemoryVectorIndex, VectorCollectionMismatchError, type VectorIndex } from '@kg/vectors';
import { searchMigrations } from '../module';
import { applyNodeEvent } from '../consumers/node-events';
import { findPendingDocuments } from '../store/documents';
import { graphNodeSource } from '../graph-calls';
import { fakeGraph, testEmbedder } from '../testing';
import { directEmbedder } from '../tenant-embedder';
import {
  createIndexer,
  nodesCollection,
  PAYLOAD_VERSION,
  type IndexedNode,
  type NodeSource,
} from '../indexing/indexer';
import { dropOldCollections, reindexTenant, UnknownTenantError, type ReindexProgress } from './reindex';

const A = 'tnt_01jd8x6q1bf5r3v2m9w7k4t0za';
const B = 'tnt_01jd8x6q1bf5r3v2m9w7k4t0zb';
const logger = createLogger('test', 'silent');
const retry = () => ({ now: new Date(), maxFailures: 5 });

let database: Database;
beforeAll(async () => {
  database = await openDatabase({ dataDir: null });
  await database.migrate(searchMigrations);
}, 60_000);
afterAll(() => database.close());

let version = 1000;
const node = (id: string, title: string, body: string): IndexedNode => ({
  id,
  title,
  summary: '',
  body_markdown: body,
  status: 'raw',
  para_item_ids: [],
  source_capture_id: null,
  updated_at: '2026-01-01T00:00:00.000Z',
});
const event = (tenantId: string, n: IndexedNode, type: 'node.created' | 'node.updated' = 'node.created'): NodeEvent =>
  ({
    id: newEventId(),
    tenant_id: tenantId,
    occurred_at: '2026-01-01T00:00:00.000Z',
    version: (version += 1),
    type,
    data: {
      node: {
        id: n.id,
        title: n.title,
        summary: n.summary,
        tags: [],
        status: 'raw',
        para_item_ids: [],
        source_capture_id: null,
        updated_at: n.updated_at,
      },
    },
  }) as NodeEvent;

/** A fresh world: the graph's nodes per tenant, the search projection fed by their events, an index. */
async function world(counts: Record<string, number>, vectors: VectorIndex = createMemoryVectorIndex()) {
  const graphNodes = new Map<string, Map<string, IndexedNode>>();
  for (const [tenantId, n] of Object.entries(counts)) {
    graphNodes.set(tenantId, new Map());
    for (let i = 0; i < n; i += 1) {
      const made = node(newId('node'), `Note ${i} of ${tenantId.slice(-2)}`, `words ${i} body${i} ${tenantId}`);
      graphNodes.get(tenantId)!.set(made.id, made);
      await applyNodeEvent(database.db, event(tenantId, made));
    }
  }
  return { graphNodes, vectors, nodes: graphNodeSource(fakeGraph(graphNodes)) };
}

/** The service's own indexer, run until nothing is pending (what a running search service does). */
async function indexAll(vectors: VectorIndex, nodes: NodeSource, model = 'test-bow-256') {
  const indexer = createIndexer({
    db: database.db,
    vectors,
    embedder: directEmbedder(testEmbedder(model)),
    nodes,
    logger,
    batchSize: 500,
  });
  await indexer.ensureCollection();
  while ((await indexer.runPass()) > 0);
  return indexer.collection;
}

describe('reindexTenant', () => {
  it("rebuilds a tenant's vectors from the graph, removes strays, reports progress and leaves other tenants alone", async () => {
    const TA = `${A}1`;
    const TB = `${B}1`;
    const { graphNodes, vectors, nodes } = await world({ [TA]: 60, [TB]: 7 });
    const collection = await indexAll(vectors, nodes);
    const before = await vectors.search(collection, {
      vector: Array(256).fill(1),
      limit: 7,
      filter: { tenant_id: TB },
    });

    // The tenant's vectors lost, plus a stray one no node matches.
    await vectors.deleteByFilter(collection, { tenant_id: TA });
    await vectors.upsert(collection, [{ id: 'node_stray', vector: Array(256).fill(0.1), payload: { tenant_id: TA } }]);
    expect(await vectors.count(collection, { tenant_id: TA })).toBe(1);

    const progress: ReindexProgress[] = [];
    const embedder = testEmbedder();
    const result = await reindexTenant(
      { db: database.db, vectors, embedder, nodes, batchSize: 25, onProgress: (p) => progress.push(p) },
      TA,
    );
    expect(result).toMatchObject({ tenantId: TA, collection, total: 60, embedded: 60, removed: 1 });
    expect(embedder.calls).toBeGreaterThanOrEqual(60);
    expect((await vectors.ids(collection, { tenant_id: TA })).sort()).toEqual([...graphNodes.get(TA)!.keys()].sort());
    expect(progress.map((p) => p.done)).toEqual([25, 50, 60]);
    expect(progress.every((p) => p.total === 60 && p.tenantId === TA && p.ratePerSecond >= 0)).toBe(true);
    // Every document recorded as embedded with the current model and payload layout: nothing pending.
    expect(
      (await findPendingDocuments(database.db, 'test-bow-256', PAYLOAD_VERSION, 1000, retry())).filter(
        (d) => d.tenantId === TA,
      ),
    ).toEqual([]);
    // The other tenant untouched.
    expect(await vectors.count(collection, { tenant_id: TB })).toBe(7);
    expect(
      await vectors.search(collection, { vector: Array(256).fill(1), limit: 7, filter: { tenant_id: TB } }),
    ).toEqual(before);
  });

  it('a node the graph no longer returns loses its vector; a node changed during the re-index is embedded again', async () => {
    const T = `${A}2`;
    const { graphNodes, vectors, nodes } = await world({ [T]: 3 });
    const collection = await indexAll(vectors, nodes);
    const [gone, changed, kept] = [...graphNodes.get(T)!.values()];
    graphNodes.get(T)!.delete(gone!.id); // deleted in graph, its tombstone event not applied yet
    // The node changes while the re-index holds its older text: the newer version must not be
    // recorded as embedded with the older vector.
    const racing: NodeSource = async (tenantId, ids) => {
      const read = await nodes(tenantId, ids);
      const update = { ...changed!, title: 'Changed meanwhile', body_markdown: 'fresh words' };
      graphNodes.get(T)!.set(changed!.id, update);
      await applyNodeEvent(database.db, event(T, update, 'node.updated'));
      await indexAll(vectors, nodes); // the running service's indexer embeds the newer version first
      return read;
    };
    const result = await reindexTenant({ db: database.db, vectors, embedder: testEmbedder(), nodes: racing }, T);
    expect(result).toMatchObject({ total: 3, embedded: 2, removed: 1 });
    expect((await vectors.ids(collection, { tenant_id: T })).sort()).toEqual([changed!.id, kept!.id].sort());
    const pending = (await findPendingDocuments(database.db, 'test-bow-256', PAYLOAD_VERSION, 1000, retry())).filter(
      (d) => d.tenantId === T,
    );
    expect(pending.map((d) => d.nodeId)).toEqual([changed!.id]);
  });

  it('an unknown tenant is refused with UnknownTenantError, nothing written', async () => {
    const { vectors, nodes } = await world({ [`${A}3`]: 2 });
    const collection = await indexAll(vectors, nodes);
    const err = await reindexTenant({ db: database.db, vectors, embedder: testEmbedder(), nodes }, `${A}9`).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(UnknownTenantError);
    expect((err as Error).message).toMatch(/tnt_01jd8x6q1bf5r3v2m9w7k4t0za9 .*no node/);
    expect(await vectors.count(collection, { tenant_id: `${A}9` })).toBe(0);
  });

  it('a persisted collection of another size is refused with the typed mismatch error, never mixed', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kg-reindex-'));
    const T = `${A}4`;
    const collection = nodesCollection('test-bow-256', 256);
    const wrong = createMemoryVectorIndex({ dir });
    await wrong.ensureCollection(collection, 3);
    const { nodes } = await world({ [T]: 1 });
    const err = await reindexTenant(
      { db: database.db, vectors: createMemoryVectorIndex({ dir }), embedder: testEmbedder(), nodes },
      T,
    ).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(VectorCollectionMismatchError);
    expect(err).toMatchObject({ collection, setting: 'size' });
  });
});

describe('after a model change: the new collection is filled by re-index, then the old one can go', () => {
  it('refuses to drop the old collection while a tenant is incomplete, and drops it (only it) once every tenant is', async () => {
    const db = await openDatabase({ dataDir: null });
    await db.migrate(searchMigrations);
    try {
      const graphNodes = new Map<string, Map<string, IndexedNode>>();
      for (const t of [A, B]) {
        graphNodes.set(t, new Map());
        for (let i = 0; i < 4; i += 1) {
          const made = node(newId('node'), `Note ${i}`, `words ${i}`);
          graphNodes.get(t)!.set(made.id, made);
          await applyNodeEvent(db.db, event(t, made));
        }
      }
      const nodes = graphNodeSource(fakeGraph(graphNodes));
      const vectors = createMemoryVectorIndex();
      const oldIndexer = createIndexer({
        db: db.db,
        vectors,
        embedder: directEmbedder(testEmbedder('model-one')),
        nodes,
        logger,
      });
      await oldIndexer.ensureCollection();
      while ((await oldIndexer.runPass()) > 0);
      await vectors.ensureCollection('unrelated_collection', 2);

      const embedder = testEmbedder('model-two');
      const current = nodesCollection('model-two', 256);
      await reindexTenant({ db: db.db, vectors, embedder, nodes }, A);
      const early = await dropOldCollections({ db: db.db, vectors, embedder });
      expect(early).toMatchObject({ dropped: [], incomplete: { total: 8, embedded: 4 } });
      expect(await vectors.collections()).toContain(oldIndexer.collection);

      await reindexTenant({ db: db.db, vectors, embedder, nodes }, B);
      const done = await dropOldCollections({ db: db.db, vectors, embedder });
      expect(done).toEqual({ current, dropped: [oldIndexer.collection] });
      expect((await vectors.collections()).sort()).toEqual([current, 'unrelated_collection'].sort());
      expect(await vectors.count(current, { tenant_id: A })).toBe(4);
      expect(await vectors.count(current, { tenant_id: B })).toBe(4);
    } finally {
      await db.close();
    }
  }, 60_000);
});
