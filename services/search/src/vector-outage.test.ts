import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { pino } from 'pino';
import { TRPCClientError } from '@trpc/client';
import { searchApi, type NodeEvent } from '@kg/contracts';
import { createMemoryBus, newEventId } from '@kg/bus';
import { newId, openDatabase, type Database } from '@kg/db';
import { connectService } from '@kg/trpc';
import {
  createMemoryVectorIndex,
  VectorCollectionMismatchError,
  VectorIndexUnavailableError,
  type VectorIndex,
} from '@kg/vectors';
import { createSearchModule, SearchStartError, searchMigrations } from './module';
import { fakeGraph, testEmbedder } from './testing';
import { applyNodeEvent } from './consumers/node-events';
import { createIndexer, FILTER_KEYS, nodesCollection, type IndexedNode } from './indexing/indexer';
import { createIndexWorker } from './indexing/worker';
import { createRanker, vectorFilter } from './ranking/search';
import { directEmbedder } from './tenant-embedder';
import { graphNodeSource } from './graph-calls';
import { createVectorHealth, watchVectors } from './vector-health';

const tenant = 'tnt_01jd8x6q1bf5r3v2m9w7k4t0za';
const identity = { tenantId: tenant, subject: 'usr_x', credential: { kind: 'jwt' as const, id: 'j' } };
const DIAGNOSTIC =
  'vectors: qdrant search failed: fetch failed (ECONNREFUSED) (check QDRANT_URL and that Qdrant is up)';

/** A logger whose lines the test reads. */
function capturedLogger() {
  const lines: Array<{ level: number; msg: string; diagnostic?: string; [k: string]: unknown }> = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const line of chunk.toString().split('\n')) if (line) lines.push(JSON.parse(line) as never);
      done();
    },
  });
  return { logger: pino({ level: 'debug' }, sink), lines };
}

/** The in-process index behind a switch: while `down`, every call fails as Qdrant unreachable does. */
function switchableIndex(inner: VectorIndex = createMemoryVectorIndex()) {
  const state = { down: false, calls: 0 };
  const fail = () => {
    state.calls += 1;
    return Promise.reject(new VectorIndexUnavailableError('unreachable', DIAGNOSTIC));
  };
  const guard =
    <A extends unknown[], R>(call: (...args: A) => Promise<R>) =>
    (...args: A): Promise<R> =>
      state.down ? fail() : call(...args);
  const index: VectorIndex = {
    kind: 'qdrant',
    ensureCollection: guard(inner.ensureCollection),
    upsert: guard(inner.upsert),
    setPayload: guard(inner.setPayload),
    delete: guard(inner.delete),
    deleteByFilter: guard(inner.deleteByFilter),
    search: guard(inner.search),
    count: guard(inner.count),
    ids: guard(inner.ids),
    collections: guard(inner.collections),
    dropCollection: guard(inner.dropCollection),
    ready: async () => !state.down,
  };
  return { index, state, inner };
}

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
let version = 1;
const created = (n: IndexedNode): NodeEvent => ({
  id: newEventId(),
  tenant_id: tenant,
  occurred_at: '2026-01-01T00:00:00.000Z',
  version: (version += 1),
  type: 'node.created',
  data: {
    node: {
      id: n.id,
      title: n.title,
      summary: n.summary,
      tags: [],
      status: 'raw',
      para_item_ids: [],
      updated_at: n.updated_at,
    },
  },
});

let database: Database;
beforeAll(async () => {
  database = await openDatabase({ dataDir: null });
  await database.migrate(searchMigrations);
}, 60_000);
afterAll(() => database.close());

/** A search module on a switchable index, a graph whose keyword side matches titles, and its tRPC client. */
async function start(down: boolean) {
  const { logger, lines } = capturedLogger();
  const vectors = switchableIndex();
  vectors.state.down = down;
  const graphNodes = new Map([[tenant, new Map<string, IndexedNode>()]]);
  const graph = fakeGraph(graphNodes, (t, q) =>
    [...graphNodes.get(t)!.values()]
      .filter((n) => n.title.toLowerCase().includes(q.toLowerCase()))
      .map((n, i) => ({ id: n.id, score: 10 - i })),
  );
  const module = await createSearchModule({
    database,
    bus: createMemoryBus(logger),
    logger,
    vectors: vectors.index,
    embedder: testEmbedder(),
    graph,
  });
  const search = connectService('gateway', 'search', searchApi, { kind: 'local', router: module.router }).as(identity);
  const write = async (n: IndexedNode) => {
    graphNodes.get(tenant)!.set(n.id, n);
    await applyNodeEvent(database.db, created(n));
  };
  const query = (mode: 'semantic' | 'hybrid', text: string) =>
    search.nodes.search({ query: text, mode, page: 1, per_page: 10 });
  return { module, vectors, lines, search, write, query };
}

const outageLines = <L extends { msg: string }>(lines: L[]) =>
  lines.filter((l) => l.msg.includes('vector index is unavailable'));

describe('the vector index unavailable', () => {
  it('at start-up: the service starts ready but degraded, semantic answers 503 with Retry-After, hybrid falls back to keyword; once the index answers, both are back', async () => {
    const s = await start(true);
    // One line with the diagnostic, no error, no stack.
    expect(outageLines(s.lines)).toHaveLength(1);
    expect(outageLines(s.lines)[0]!.diagnostic).toBe(DIAGNOSTIC);
    expect(s.lines.filter((l) => l.level >= 50)).toEqual([]);
    expect(await s.module.ready()).toBe(true);
    expect(await s.module.degraded!()).toEqual(['vectors']);

    const id = newId('node');
    await s.write(node(id, 'Sourdough starter', 'flour water levain'));
    const semantic = await s.query('semantic', 'sourdough').catch((err: unknown) => err);
    expect(semantic).toBeInstanceOf(TRPCClientError);
    const data = (semantic as TRPCClientError<never>).data as unknown as {
      httpStatus: number;
      problem?: { retryAfterSeconds?: number };
    };
    expect(data.httpStatus).toBe(503);
    expect(data.problem?.retryAfterSeconds).toBe(5);
    // What leaves the service (the message and the problem) names nothing of the server.
    expect(JSON.stringify([data, (semantic as Error).message])).not.toMatch(/ECONNREFUSED|QDRANT_URL/);
    const hybrid = await s.query('hybrid', 'sourdough');
    expect(hybrid).toEqual({ hits: [{ id, score: 10 }], total: 1, fallback: 'keyword' });
    // Still one line for the whole outage, however many calls failed.
    expect(outageLines(s.lines)).toHaveLength(1);

    s.vectors.state.down = false;
    await s.module.start();
    const indexed = await vi.waitFor(
      async () => {
        const page = await s.query('semantic', 'flour water levain');
        if (page.hits.length === 0) throw new Error('not indexed yet');
        return page;
      },
      { timeout: 10_000, interval: 50 },
    );
    expect(indexed.hits.map((h) => h.id)).toEqual([id]);
    const back = await s.query('hybrid', 'sourdough');
    expect(back.fallback).toBeUndefined();
    expect(back.hits[0]!.id).toBe(id);
    expect(await s.module.degraded!()).toEqual([]);
    expect(s.lines.filter((l) => l.msg.includes('semantic search is back'))).toHaveLength(1);
    await s.module.stop();
  });

  it('during an outage after start-up: hybrid says it fell back, semantic answers 503, suggestions too, and readiness stays true', async () => {
    const s = await start(false);
    const id = newId('node');
    await s.write(node(id, 'Kombucha', 'scoby tea sugar'));
    await s.module.start();
    await vi.waitFor(
      async () => {
        if ((await s.query('semantic', 'scoby tea sugar')).hits.length === 0) throw new Error('not indexed yet');
      },
      { timeout: 10_000, interval: 50 },
    );
    s.vectors.state.down = true;
    expect((await s.query('hybrid', 'kombucha')).fallback).toBe('keyword');
    await expect(s.query('semantic', 'kombucha')).rejects.toMatchObject({ data: { httpStatus: 503 } });
    await expect(s.search.links.suggest({ text: 'scoby', limit: 5 })).rejects.toMatchObject({
      data: { httpStatus: 503 },
    });
    expect(await s.module.ready()).toBe(true);
    expect(await s.module.degraded!()).toEqual(['vectors']);
    expect(outageLines(s.lines)).toHaveLength(1);
    await s.module.stop();
  });

  it('a collection that exists with another vector size stops the start with one message naming the setting', async () => {
    const embedder = testEmbedder();
    const collection = nodesCollection(embedder.model, embedder.dimensions);
    // As the Qdrant adapter answers for a collection made with 3-dimensional vectors.
    const inner: VectorIndex = {
      ...createMemoryVectorIndex(),
      ensureCollection: () =>
        Promise.reject(
          new VectorCollectionMismatchError(
            collection,
            'size',
            `vectors: Qdrant collection ${collection} exists with vector size 3 (3 dimensions, Cosine); expected 256 dimensions, Cosine; delete it or use another collection`,
          ),
        ),
    };
    const { logger } = capturedLogger();
    const started = createSearchModule({
      database,
      bus: createMemoryBus(logger),
      logger,
      vectors: inner,
      embedder,
      graph: fakeGraph(new Map()),
    });
    const err = await started.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SearchStartError);
    expect((err as SearchStartError).mismatch).toBeInstanceOf(VectorCollectionMismatchError);
    expect((err as Error).message).toMatch(/size/);
    expect((err as Error).message).not.toContain('\n');
  });
});

describe('searches during an outage', () => {
  it('try the index at most once a second; the others fall back at once, until one finds it back', async () => {
    const { logger } = capturedLogger();
    const vectors = switchableIndex();
    const health = createVectorHealth(logger);
    let clock = 0;
    const ranker = createRanker({
      vectors: watchVectors(vectors.index, health),
      embedder: directEmbedder(testEmbedder()),
      keyword: async () => [{ id: 'node_a', score: 2 }],
      health,
      now: () => clock,
    });
    expect((await ranker.rank(tenant, 'tea', 'hybrid', {})).fallback).toBeUndefined();
    vectors.state.down = true;
    const answers: Array<string | undefined> = [];
    for (clock = 10_000; clock < 11_500; clock += 100)
      answers.push((await ranker.rank(tenant, 'tea', 'hybrid', {})).fallback);
    expect(answers.every((f) => f === 'keyword')).toBe(true);
    expect(vectors.state.calls).toBe(2); // at 10.0 s and 11.0 s
    await expect(ranker.rank(tenant, 'tea', 'semantic', {})).rejects.toBeInstanceOf(VectorIndexUnavailableError);
    expect(vectors.state.calls).toBe(2);
    vectors.state.down = false;
    clock = 11_600;
    expect((await ranker.rank(tenant, 'tea', 'hybrid', {})).fallback).toBe('keyword'); // not tried yet
    clock = 12_000;
    expect((await ranker.rank(tenant, 'tea', 'hybrid', {})).fallback).toBeUndefined();
    expect(health.outage).toBeNull();
  });
});

describe('indexing while the vector index is unavailable', () => {
  it('backs off (1 s doubling, capped), logs the outage once and its end once, and keeps documents pending', async () => {
    const { logger, lines } = capturedLogger();
    const vectors = switchableIndex();
    const health = createVectorHealth(logger);
    const embedder = testEmbedder('backoff-model');
    const graphNodes = new Map([[tenant, new Map<string, IndexedNode>()]]);
    const indexer = createIndexer({
      db: database.db,
      vectors: watchVectors(vectors.index, health),
      embedder: directEmbedder(embedder),
      nodes: graphNodeSource(fakeGraph(graphNodes)),
      logger,
    });
    await indexer.ensureCollection();
    const id = newId('node');
    const n = node(id, 'Otters', 'river otter crayfish');
    graphNodes.get(tenant)!.set(id, n);
    await applyNodeEvent(database.db, created(n));

    let clock = 0;
    const runPass = vi.spyOn(indexer, 'runPass');
    const worker = createIndexWorker(indexer, 200, logger, {
      health,
      onMismatch: () => undefined,
      now: () => clock,
      firstBackoffMs: 1000,
      maxBackoffMs: 4000,
    });
    vectors.state.down = true;
    const attemptsAt: number[] = [];
    for (clock = 0; clock <= 20_000; clock += 100) {
      const before = runPass.mock.calls.length;
      await worker.runOnce();
      if (runPass.mock.calls.length > before) attemptsAt.push(clock);
    }
    // 0, then 1 s, 2 s, 4 s later, then every 4 s (the cap).
    expect(attemptsAt).toEqual([0, 1000, 3000, 7000, 11_000, 15_000, 19_000]);
    expect(outageLines(lines)).toHaveLength(1);
    expect(lines.filter((l) => l.level >= 40 && !l.msg.includes('vector index is unavailable'))).toEqual([]);
    expect(await vectors.inner.count(indexer.collection, { tenant_id: tenant })).toBe(0);

    vectors.state.down = false;
    clock = 23_000;
    expect(await worker.runOnce()).toBeGreaterThan(0);
    expect(await vectors.inner.count(indexer.collection, { tenant_id: tenant })).toBe(1);
    expect(lines.filter((l) => l.msg.includes('semantic search is back'))).toHaveLength(1);
    // Recovered: the next failure is tried again at once, the backoff starting over.
    vectors.state.down = true;
    const next = node(newId('node'), 'Beavers', 'dam lodge');
    graphNodes.get(tenant)!.set(next.id, next);
    await applyNodeEvent(database.db, created(next));
    clock = 23_100;
    await worker.runOnce();
    clock = 24_100;
    const before = runPass.mock.calls.length;
    await worker.runOnce();
    expect(runPass.mock.calls.length).toBeGreaterThan(before); // tried 1 s later: the backoff started over
    expect(outageLines(lines)).toHaveLength(2);
  });

  it('a payload update the index cannot take ends the pass and leaves the document pending (no re-embedding)', async () => {
    const { logger } = capturedLogger();
    const vectors = switchableIndex();
    const embedder = testEmbedder('payload-model');
    const graphNodes = new Map([[tenant, new Map<string, IndexedNode>()]]);
    const indexer = createIndexer({
      db: database.db,
      vectors: vectors.index,
      embedder: directEmbedder(embedder),
      nodes: graphNodeSource(fakeGraph(graphNodes)),
      logger,
    });
    await indexer.ensureCollection();
    const id = newId('node');
    const n = node(id, 'Kefir', 'grains milk');
    graphNodes.get(tenant)!.set(id, n);
    await applyNodeEvent(database.db, created(n));
    while ((await indexer.runPass()) > 0);
    const { documents } = await import('./store/schema');
    const { eq } = await import('drizzle-orm');
    await database.db.update(documents).set({ embeddedPayload: null }).where(eq(documents.nodeId, id));
    const calls = embedder.calls;
    // setPayload alone fails: the index is reachable for the gate (already made) but not for writes.
    vectors.index.setPayload = () => Promise.reject(new VectorIndexUnavailableError('timeout', DIAGNOSTIC));
    await expect(indexer.runPass()).rejects.toBeInstanceOf(VectorIndexUnavailableError);
    expect(embedder.calls).toBe(calls);
    vectors.index.setPayload = vectors.inner.setPayload;
    expect(await indexer.runPass()).toBe(1);
    expect(embedder.calls).toBe(calls);
  });
});

describe('the nodes collection', () => {
  it('has an index on every key the vector filter uses', async () => {
    const filter = vectorFilter(tenant, 'm', {
      status: 'raw',
      para_item_id: 'para_x',
      orphan: true,
      source_capture_id: 'cap_x',
    });
    expect(Object.keys(filter).sort()).toEqual(['tenant_id', ...FILTER_KEYS].sort());
    const vectors = createMemoryVectorIndex();
    const ensure = vi.spyOn(vectors, 'ensureCollection');
    const embedder = testEmbedder();
    await createIndexer({
      db: database.db,
      vectors,
      embedder: directEmbedder(embedder),
      nodes: async () => [],
      logger: capturedLogger().logger,
    }).ensureCollection();
    expect(ensure).toHaveBeenCalledWith(nodesCollection(embedder.model, 256), 256, { filterKeys: FILTER_KEYS });
  });

  it('is named per model, not only per vector size, and stays the same name for a model', () => {
    const a = nodesCollection('Xenova/all-MiniLM-L6-v2', 384);
    expect(a).toBe(nodesCollection('Xenova/all-MiniLM-L6-v2', 384));
    expect(a).toMatch(/^kg_nodes_all-minilm-l6-v2_[0-9a-f]{10}_d384$/);
    expect(nodesCollection('Xenova/bge-small-en-v1.5', 384)).not.toBe(a);
    expect(nodesCollection('other/all-MiniLM-L6-v2', 384)).not.toBe(a);
  });
});
