import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inArray } from 'drizzle-orm';
import { searchApi, type NodeEvent } from '@kg/contracts';
import { newEventId } from '@kg/bus';
import { newId, openDatabase, type Database } from '@kg/db';
import { createLogger } from '@kg/logger';
import { connectService } from '@kg/trpc';
import { createMemoryVectorIndex } from '@kg/vectors';
import { searchMigrations } from '../module';
import { documents } from '../store/schema';
import { applyNodeEvent } from '../consumers/node-events';
import { createRanker } from '../ranking/search';
import { createContextRanker } from '../ranking/context';
import { createSearchRouter } from '../router';
import { fakeGraph, testEmbedder } from '../testing';
import { createEmbeddingCache } from '../embedding-cache';
import { createEmbedderQueue } from '../embedder-queue';
import { createTenantEmbedder, directEmbedder } from '../tenant-embedder';
import { graphKeywordSource, graphNodeSource } from '../graph-calls';
import { nodePassages } from './text';
import { createIndexer, embedNode, nodesCollection, PAYLOAD_VERSION, type IndexedNode } from './indexer';

const tenant = 'tnt_01jd8x6q1bf5r3v2m9w7k4t0za';
const other = 'tnt_01jd8x6q1bf5r3v2m9w7k4t0zb';
const logger = createLogger('test', 'silent');
const identity = (tenantId: string) => ({ tenantId, subject: 'usr_x', credential: { kind: 'jwt' as const, id: 'j' } });

let database: Database;
beforeAll(async () => {
  database = await openDatabase({ dataDir: null });
  await database.migrate(searchMigrations);
}, 60_000);
afterAll(() => database.close());

let version = 100;
const node = (id: string, title: string, body: string, extra: Partial<IndexedNode> = {}): IndexedNode => ({
  id,
  title,
  summary: '',
  body_markdown: body,
  status: 'raw',
  para_item_ids: [],
  source_capture_id: null,
  updated_at: '2026-01-01T00:00:00.000Z',
  ...extra,
});
const event = (tenantId: string, n: IndexedNode): NodeEvent => ({
  id: newEventId(),
  tenant_id: tenantId,
  occurred_at: '2026-01-01T00:00:00.000Z',
  version: (version += 1),
  type: 'node.created',
  data: {
    node: {
      id: n.id,
      title: n.title,
      summary: n.summary,
      tags: [],
      status: n.status as 'raw',
      para_item_ids: n.para_item_ids,
      source_capture_id: n.source_capture_id,
      updated_at: n.updated_at,
    },
  },
});

/** `cache`: the indexer and the ranker share an embedding cache, as in module.ts (`embedder` counts the model's texts). */
function setup(model = 'test-bow-256', { cache = false } = {}) {
  const graphNodes = new Map<string, Map<string, IndexedNode>>([
    [tenant, new Map()],
    [other, new Map()],
  ]);
  const vectors = createMemoryVectorIndex();
  const embedder = testEmbedder(model);
  const shared = cache
    ? createTenantEmbedder(embedder, createEmbeddingCache(), createEmbedderQueue())
    : directEmbedder(embedder);
  const graph = fakeGraph(graphNodes, (t, q, f) =>
    [...graphNodes.get(t)!.values()]
      .filter((n) => n.title.toLowerCase().includes(q.toLowerCase()))
      .filter((n) => f.source_capture_id === undefined || n.source_capture_id === f.source_capture_id)
      .map((n, i) => ({ id: n.id, score: 10 - i })),
  );
  const indexer = createIndexer({ db: database.db, vectors, embedder: shared, nodes: graphNodeSource(graph), logger });
  const ranker = createRanker({
    vectors,
    embedder: shared,
    keyword: graphKeywordSource(graph),
  });
  const router = createSearchRouter(
    database.db,
    ranker,
    createContextRanker({ db: database.db, ranker, nodes: graphNodeSource(graph), links: async () => [] }),
    embedder.model,
    async (tenantId, nodeId) => {
      const [node] = await graphNodeSource(graph)(tenantId, [nodeId]);
      return node ? embedNode(shared.for(tenantId, 'background'), node) : null;
    },
  );
  const search = (t: string) =>
    connectService('gateway', 'search', searchApi, { kind: 'local', router }).as(identity(t));
  /** As the ingest worker's stage 5 calls search. */
  const worker = (t: string) =>
    connectService('ingest-worker', 'search', searchApi, { kind: 'local', router }).as(identity(t));
  const write = async (t: string, n: IndexedNode) => {
    graphNodes.get(t)!.set(n.id, n);
    await applyNodeEvent(database.db, event(t, n));
  };
  const drain = async () => {
    while ((await indexer.runPass()) > 0);
  };
  return { vectors, embedder, shared, indexer, search, worker, write, drain, graphNodes, graph };
}

describe('indexer and semantic ranking', () => {
  it('embeds pending documents off the write path, ranks by cosine per tenant and honours filters', async () => {
    const s = setup();
    await s.indexer.ensureCollection();
    const gardenId = newId('node');
    const taxesId = newId('node');
    await s.write(tenant, node(gardenId, 'Garden', 'tomato seedlings compost watering', { status: 'validated' }));
    await s.write(tenant, node(taxesId, 'Taxes', 'receipts deductions invoices filing'));
    await s.write(other, node(newId('node'), 'Garden elsewhere', 'tomato seedlings compost watering'));
    // Nothing is embedded until a pass runs.
    expect(s.embedder.calls).toBe(0);
    expect(await s.search(tenant).indexing.status({})).toMatchObject({ total: 2, embedded: 0 });
    await s.drain();
    expect(await s.search(tenant).indexing.status({})).toMatchObject({ total: 2, embedded: 2 });

    const page = await s
      .search(tenant)
      .nodes.search({ query: 'compost for tomato seedlings', mode: 'semantic', page: 1, per_page: 10 });
    expect(page.hits.map((h) => h.id)).toEqual([gardenId]);
    expect(page.total).toBe(1);
    expect(page.hits[0]!.score).toBeGreaterThanOrEqual(0.25);

    const filtered = (status: 'raw' | 'validated') =>
      s.search(tenant).nodes.search({ query: 'tomato seedlings', mode: 'semantic', status, page: 1, per_page: 10 });
    expect((await filtered('raw')).hits).toEqual([]);
    expect((await filtered('validated')).hits.map((h) => h.id)).toEqual([gardenId]);
    const orphans = await s
      .search(tenant)
      .nodes.search({ query: 'tomato seedlings', mode: 'semantic', orphan: false, page: 1, per_page: 10 });
    expect(orphans.hits).toEqual([]);
  });

  it('hybrid fuses graph keyword candidates with semantic ones; pages and total follow the fused list', async () => {
    const s = setup();
    await s.indexer.ensureCollection();
    const ids = [newId('node'), newId('node'), newId('node')];
    await s.write(tenant, node(ids[0]!, 'Alpha notes', 'kettle boiling water tea'));
    await s.write(tenant, node(ids[1]!, 'Beta', 'alpha particles radiation'));
    await s.write(tenant, node(ids[2]!, 'Gamma', 'unrelated words entirely'));
    await s.drain();
    const all = await s.search(tenant).nodes.search({ query: 'alpha', mode: 'hybrid', page: 1, per_page: 10 });
    // ids[0] is the keyword candidate (title), ids[1] the semantic one (body word).
    expect(new Set(all.hits.map((h) => h.id))).toEqual(new Set([ids[0], ids[1]]));
    expect(all.total).toBe(2);
    const second = await s.search(tenant).nodes.search({ query: 'alpha', mode: 'hybrid', page: 2, per_page: 1 });
    expect(second.hits).toEqual([all.hits[1]]);
    expect(second.total).toBe(2);
  });

  it('re-embeds on update, removes the vector of a deleted node, and re-embeds everything when the model changes', async () => {
    const s = setup('model-a');
    await s.indexer.ensureCollection();
    const id = newId('node');
    await s.write(tenant, node(id, 'Bicycle', 'chain gears saddle'));
    await s.drain();
    await s.write(tenant, node(id, 'Bicycle', 'puncture tyre repair'));
    await s.drain();
    const q = (text: string) => s.search(tenant).nodes.search({ query: text, mode: 'semantic', page: 1, per_page: 10 });
    expect((await q('puncture tyre repair')).hits.map((h) => h.id)).toEqual([id]);

    // Another model: every document becomes pending again, and only its vectors are searched.
    const b = testEmbedder('model-b');
    const indexerB = createIndexer({
      db: database.db,
      vectors: s.vectors,
      embedder: directEmbedder(b),
      nodes: graphNodeSource(fakeGraph(s.graphNodes)),
      logger,
    });
    await indexerB.ensureCollection();
    while ((await indexerB.runPass()) > 0);
    expect(b.calls).toBeGreaterThan(0);
    const collection = nodesCollection('model-b', 256);
    const [hit] = await s.vectors.search(collection, {
      vector: new Array(256).fill(1),
      limit: 1,
      filter: { tenant_id: tenant, model: 'model-b' },
    });
    expect(hit?.id).toBe(id);

    await applyNodeEvent(database.db, {
      id: newEventId(),
      tenant_id: tenant,
      occurred_at: '2026-01-01T00:00:00.000Z',
      version: (version += 1),
      type: 'node.deleted',
      data: { node_id: id, unlinked_ids: [] },
    });
    s.graphNodes.get(tenant)!.delete(id);
    while ((await indexerB.runPass()) > 0); // the indexer of the current model removes it from its collection
    expect(await s.vectors.count(collection, { tenant_id: tenant })).toBe(0);
  });

  it('stores source_capture_id in the payload (null for a node made by hand) and filters semantic and hybrid on it', async () => {
    const s = setup();
    await s.indexer.ensureCollection();
    const [fromCapture, byHand] = [newId('node'), newId('node')];
    const capture = 'cap_01jd8x6q1bf5r3v2m9w7k4t0za';
    await s.write(tenant, node(fromCapture, 'Sourdough', 'starter flour water', { source_capture_id: capture }));
    await s.write(tenant, node(byHand, 'Sourdough by hand', 'starter flour water'));
    await s.drain();
    const stored = await s.vectors.search(nodesCollection(s.embedder.model, 256), {
      vector: new Array(256).fill(1),
      limit: 10,
      filter: { tenant_id: tenant },
    });
    expect(new Map(stored.map((h) => [h.id, h.payload.source_capture_id]))).toEqual(
      new Map([
        [fromCapture, capture],
        [byHand, null],
      ]),
    );
    const q = (mode: 'semantic' | 'hybrid', source_capture_id?: string) =>
      s.search(tenant).nodes.search({
        query: 'sourdough starter flour',
        mode,
        ...(source_capture_id !== undefined ? { source_capture_id } : {}),
        page: 1,
        per_page: 10,
      });
    for (const mode of ['semantic', 'hybrid'] as const) {
      expect(new Set((await q(mode)).hits.map((h) => h.id))).toEqual(new Set([fromCapture, byHand]));
      expect((await q(mode, capture)).hits.map((h) => h.id)).toEqual([fromCapture]);
      expect((await q(mode, 'cap_01jd8x6q1bf5r3v2m9w7k4t0zz')).hits).toEqual([]);
    }
  });

  it('gives points stored before source_capture_id the field by a payload update, without embedding again', async () => {
    const s = setup();
    await s.indexer.ensureCollection();
    const collection = nodesCollection(s.embedder.model, 256);
    const [kept, lost] = [newId('node'), newId('node')];
    const capture = 'cap_01jd8x6q1bf5r3v2m9w7k4t0zb';
    await s.write(tenant, node(kept, 'Kombucha', 'scoby tea sugar', { source_capture_id: capture }));
    await s.write(tenant, node(lost, 'Kefir', 'grains milk', { source_capture_id: 'cap_01jd8x6q1bf5r3v2m9w7k4t0zc' }));
    await s.drain();
    // As the previous release left them: no source_capture_id in the payload, no payload layout recorded.
    const [point] = await s.vectors.search(collection, {
      vector: new Array(256).fill(1),
      limit: 1,
      filter: { tenant_id: tenant, source_capture_id: capture },
    });
    const { source_capture_id: _dropped, ...legacy } = point!.payload;
    const vector = Array.from((await s.embedder.embed(['Kombucha. scoby tea sugar'], 'passage'))[0]!);
    await s.vectors.upsert(collection, [{ id: kept, vector, payload: legacy }]);
    await s.vectors.delete(collection, [lost]);
    const both = inArray(documents.nodeId, [kept, lost]);
    await database.db.update(documents).set({ embeddedPayload: null }).where(both);
    const filtered = () =>
      s.search(tenant).nodes.search({
        query: 'kombucha scoby tea',
        mode: 'semantic',
        source_capture_id: capture,
        page: 1,
        per_page: 10,
      });
    expect((await filtered()).hits).toEqual([]);

    const calls = s.embedder.calls;
    await s.drain();
    // kept: payload only (no embedding); lost: its point was missing, so it was embedded again (one passage).
    expect(s.embedder.calls - calls).toBe(1);
    expect((await filtered()).hits.map((h) => h.id)).toEqual([kept]);
    const rows = await database.db.select({ payload: documents.embeddedPayload }).from(documents).where(both);
    expect(rows).toEqual([{ payload: PAYLOAD_VERSION }, { payload: PAYLOAD_VERSION }]);
    expect(await s.vectors.count(collection, { tenant_id: tenant, source_capture_id: capture })).toBe(1);
    expect(await s.indexer.runPass()).toBe(0);
  });
});

describe('one embedding per capture (stage 5 and the indexer share the embedding cache)', () => {
  const long = 'The river otter dives for crayfish under the alder roots. '.repeat(40);
  const make = () => node(newId('node'), 'Otters at dusk', long, { summary: 'Otters feeding by the alders.' });

  it('stage 5 first: links.similar embeds the node; the indexer then embeds nothing', async () => {
    const s = setup('test-bow-256', { cache: true });
    await s.indexer.ensureCollection();
    const near = node(newId('node'), 'Otter notes', 'river otter crayfish alder roots');
    await s.write(tenant, near);
    await s.drain();
    const before = s.embedder.calls;
    const n = make();
    await s.write(tenant, n);
    const passages = nodePassages(n).length;
    expect(passages).toBeGreaterThan(1);
    const similar = await s.worker(tenant).links.similar({ node_id: n.id, limit: 10 });
    expect(similar.hits.map((h) => h.id)).toEqual([near.id]);
    expect(s.embedder.calls - before).toBe(passages);
    await s.drain();
    expect(s.embedder.calls - before).toBe(passages);
    // The indexed vector is the one links.similar scored by: it finds the node at cosine 1.
    const [self] = await s.vectors.search(s.indexer.collection, {
      vector: await embedNode(s.shared.for(tenant, 'background'), n),
      limit: 1,
      filter: { tenant_id: tenant },
    });
    expect(self).toMatchObject({ id: n.id });
    expect(self!.score).toBeCloseTo(1, 5);
    expect(s.embedder.calls - before).toBe(passages);
  });

  it('indexer first: the indexer embeds the node; links.similar then embeds nothing and leaves the node out', async () => {
    const s = setup('test-bow-256', { cache: true });
    await s.indexer.ensureCollection();
    const n = make();
    await s.write(tenant, n);
    await s.drain();
    const passages = nodePassages(n).length;
    expect(s.embedder.calls).toBe(passages);
    const similar = await s.worker(tenant).links.similar({ node_id: n.id, limit: 10 });
    expect(similar.hits).toEqual([]);
    expect(s.embedder.calls).toBe(passages);
  });

  it('without the cache the same capture is embedded twice (what the cache saves)', async () => {
    const s = setup();
    await s.indexer.ensureCollection();
    const n = make();
    await s.write(tenant, n);
    await s.worker(tenant).links.similar({ node_id: n.id, limit: 10 });
    await s.drain();
    expect(s.embedder.calls).toBe(2 * nodePassages(n).length);
  });

  it('a node graph does not know has no similar nodes', async () => {
    const s = setup('test-bow-256', { cache: true });
    await s.indexer.ensureCollection();
    expect(await s.worker(tenant).links.similar({ node_id: newId('node'), limit: 5 })).toEqual({
      hits: [],
      model: 'test-bow-256',
    });
  });
});

describe('a pass embeds a tenant’s nodes together', () => {
  /** The indexer over a memory index that counts its writes, and an embedder that fails on `poison`. */
  function batchSetup(onEmbed: (texts: string[]) => Promise<void> = async () => undefined) {
    const graphNodes = new Map<string, Map<string, IndexedNode>>([[tenant, new Map()]]);
    const memory = createMemoryVectorIndex();
    const upserts: number[] = [];
    const vectors = {
      ...memory,
      upsert: (collection: string, points: Parameters<typeof memory.upsert>[1]) => {
        upserts.push(points.length);
        return memory.upsert(collection, points);
      },
    } as typeof memory;
    const base = testEmbedder();
    const embedder = {
      ...base,
      async embed(texts: string[], kind: 'query' | 'passage') {
        await onEmbed(texts);
        if (texts.some((t) => t.includes('poison'))) throw new Error('the model refused');
        return base.embed(texts, kind);
      },
    };
    const shared = createTenantEmbedder(embedder, createEmbeddingCache(), createEmbedderQueue());
    const graph = fakeGraph(graphNodes, () => []);
    const indexer = createIndexer({
      db: database.db,
      vectors,
      embedder: shared,
      nodes: graphNodeSource(graph),
      logger,
    });
    const write = async (n: IndexedNode) => {
      graphNodes.get(tenant)!.set(n.id, n);
      await applyNodeEvent(database.db, event(tenant, n));
    };
    const rows = (ids: string[]) =>
      database.db
        .select({
          nodeId: documents.nodeId,
          version: documents.version,
          embeddedVersion: documents.embeddedVersion,
          embedFailures: documents.embedFailures,
        })
        .from(documents)
        .where(inArray(documents.nodeId, ids));
    return { indexer, upserts, write, rows, graphNodes };
  }

  it('one vector write and one record for the batch; one failing embedding leaves the others stored and records its own failure', async () => {
    const s = batchSetup();
    await s.indexer.ensureCollection();
    const good = Array.from({ length: 5 }, (_, i) => node(newId('node'), `Batch ${i}`, `ordinary words number ${i}`));
    for (const n of good) await s.write(n);
    expect(await s.indexer.runPass()).toBe(5);
    expect(s.upserts).toEqual([5]);
    expect((await s.rows(good.map((n) => n.id))).every((r) => r.embeddedVersion === r.version)).toBe(true);

    const more = Array.from({ length: 3 }, (_, i) => node(newId('node'), `More ${i}`, `plain text ${i}`));
    const bad = node(newId('node'), 'Bad', 'this one carries poison');
    for (const n of [...more, bad]) await s.write(n);
    expect(await s.indexer.runPass()).toBe(4);
    const after = await s.rows([...more, bad].map((n) => n.id));
    for (const r of after.filter((r) => r.nodeId !== bad.id)) expect(r.embeddedVersion).toBe(r.version);
    expect(after.find((r) => r.nodeId === bad.id)).toMatchObject({ embeddedVersion: null, embedFailures: 1 });
  });

  it('a node changed while its batch was being embedded stays pending, and the next pass embeds its new text', async () => {
    let change: (() => Promise<void>) | null = null;
    const s = batchSetup(async () => {
      const c = change;
      change = null;
      await c?.();
    });
    await s.indexer.ensureCollection();
    const nodes = Array.from({ length: 3 }, (_, i) => node(newId('node'), `Race ${i}`, `racing words ${i}`));
    for (const n of nodes) await s.write(n);
    change = () => s.write({ ...nodes[1]!, body_markdown: 'rewritten meanwhile' });
    expect(await s.indexer.runPass()).toBe(3);
    const first = await s.rows(nodes.map((n) => n.id));
    const changed = first.find((r) => r.nodeId === nodes[1]!.id)!;
    expect(changed.embeddedVersion).not.toBe(changed.version);
    for (const r of first.filter((r) => r.nodeId !== nodes[1]!.id)) expect(r.embeddedVersion).toBe(r.version);
    expect(await s.indexer.runPass()).toBe(1);
    const [again] = await s.rows([nodes[1]!.id]);
    expect(again!.embeddedVersion).toBe(again!.version);
  });
});
