import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { pino } from 'pino';
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
import { createSearchModule, searchMigrations, type SearchStartError } from './module';
import { fakeGraph, testEmbedder } from './testing';
import { applyNodeEvent } from './consumers/node-events';
import { nodesCollection, type IndexedNode } from './indexing/indexer';

const tenant = 'tnt_01jd8x6q1bf5r3v2m9w7k4t0za';
const identity = { tenantId: tenant, subject: 'usr_x', credential: { kind: 'jwt' as const, id: 'j' } };

let database: Database;
beforeAll(async () => {
  database = await openDatabase({ dataDir: null });
  await database.migrate(searchMigrations);
}, 60_000);
afterAll(() => database.close());

/**
 * Qdrant unreachable at start-up, then up with the collection made by someone else with
 * another vector size: what the search service meets when it makes the collection late.
 */
function lateMismatch(collection: string) {
  const state = { up: false, ensureCalls: 0 };
  const inner = createMemoryVectorIndex();
  const index: VectorIndex = {
    ...inner,
    kind: 'qdrant',
    ensureCollection: () => {
      state.ensureCalls += 1;
      return Promise.reject(
        state.up
          ? new VectorCollectionMismatchError(
              collection,
              'size',
              `vectors: Qdrant collection ${collection} exists with vector size 3 (3 dimensions, Cosine); expected 256 dimensions, Cosine`,
            )
          : new VectorIndexUnavailableError(
              'unreachable',
              'vectors: qdrant collection exists failed: fetch failed (check QDRANT_URL and that Qdrant is up)',
            ),
      );
    },
    ready: async () => state.up,
  };
  return { index, state };
}

describe('a collection with other vectors found after start-up (the index was unreachable then)', () => {
  it('semantic answers 503 and hybrid falls back to keyword (never a 500), readiness says degraded, one error line naming the setting, no vector written', async () => {
    const lines: Array<{ level: number; msg: string; [k: string]: unknown }> = [];
    const logger = pino(
      { level: 'debug' },
      new Writable({
        write(chunk: Buffer, _enc, done) {
          for (const line of chunk.toString().split('\n')) if (line) lines.push(JSON.parse(line) as never);
          done();
        },
      }),
    );
    const embedder = testEmbedder();
    const collection = nodesCollection(embedder.model, embedder.dimensions);
    const vectors = lateMismatch(collection);
    const graphNodes = new Map([[tenant, new Map<string, IndexedNode>()]]);
    const graph = fakeGraph(graphNodes, (t, q) =>
      [...graphNodes.get(t)!.values()]
        .filter((n) => n.title.toLowerCase().includes(q))
        .map((n) => ({ id: n.id, score: 1 })),
    );
    // The embedded host gives no onFatal: the module must stay sane on its own.
    const module = await createSearchModule({
      database,
      bus: createMemoryBus(logger),
      logger,
      vectors: vectors.index,
      embedder,
      graph,
      indexIntervalMs: 20,
      indexBackoffMs: { first: 20, max: 40 },
    });
    const n: IndexedNode = {
      id: newId('node'),
      title: 'kombucha scoby',
      summary: '',
      body_markdown: 'tea',
      status: 'raw',
      para_item_ids: [],
      source_capture_id: null,
      updated_at: '2026-01-01T00:00:00.000Z',
    };
    graphNodes.get(tenant)!.set(n.id, n);
    await applyNodeEvent(database.db, {
      id: newEventId(),
      tenant_id: tenant,
      occurred_at: n.updated_at,
      version: 1,
      type: 'node.created',
      data: {
        node: {
          id: n.id,
          title: n.title,
          summary: '',
          tags: [],
          status: 'raw',
          para_item_ids: [],
          updated_at: n.updated_at,
        },
      },
    } as NodeEvent);
    const search = connectService('gateway', 'search', searchApi, { kind: 'local', router: module.router }).as(
      identity,
    );
    const query = (mode: 'semantic' | 'hybrid') =>
      search.nodes.search({ query: 'kombucha', mode, page: 1, per_page: 10 });

    vectors.state.up = true; // Qdrant up, with the wrong collection
    await module.start();
    const mismatchLines = () => lines.filter((l) => l.level >= 50);
    await vi.waitFor(() => expect(mismatchLines()).toHaveLength(1), { timeout: 10_000, interval: 20 });
    for (let i = 0; i < 3; i += 1) {
      await expect(query('semantic')).rejects.toMatchObject({ data: { httpStatus: 503 } });
      expect(await query('hybrid')).toMatchObject({ hits: [{ id: n.id }], fallback: 'keyword' });
    }
    expect(await module.ready()).toBe(true);
    expect(await module.degraded!()).toEqual(['vectors']);
    // Indexing stopped at the mismatch: the collection is not tried again and again.
    const calls = vectors.state.ensureCalls;
    await new Promise((r) => setTimeout(r, 200));
    expect(vectors.state.ensureCalls).toBe(calls);
    const [line] = mismatchLines();
    expect(line!.msg).toMatch(new RegExp(`vector size 3 .*${collection}`));
    expect(line!.msg).toContain('EMBEDDINGS_MODEL');
    expect(line!.msg).not.toContain('\n');
    expect(JSON.stringify(line)).not.toMatch(/"stack"/);
    expect(mismatchLines()).toHaveLength(1);
    await module.stop();
  });

  it('with onFatal (the search process): told once, with the SearchStartError', async () => {
    const embedder = testEmbedder();
    const vectors = lateMismatch(nodesCollection(embedder.model, embedder.dimensions));
    const fatal: SearchStartError[] = [];
    const logger = pino({ level: 'silent' });
    const module = await createSearchModule({
      database,
      bus: createMemoryBus(logger),
      logger,
      vectors: vectors.index,
      embedder,
      graph: fakeGraph(new Map()),
      indexIntervalMs: 20,
      indexBackoffMs: { first: 20, max: 40 },
      onFatal: (err) => fatal.push(err),
    });
    vectors.state.up = true;
    await module.start();
    await vi.waitFor(() => expect(fatal).toHaveLength(1), { timeout: 10_000, interval: 20 });
    expect(fatal[0]!.mismatch.setting).toBe('size');
    await module.stop();
  });
});
