/**
 * Passes at once (indexing/worker.ts runs INDEX_PASSES_IN_FLIGHT): while one waits for the
 * model, the next takes its documents. Two passes of one indexer never take the same node, and
 * every document ends recorded once. Tombstones of a pass leave the vector index in one call.
 */
import { describe, expect, it } from 'vitest';
import { newEventId } from '@kg/bus';
import type { NodeEvent } from '@kg/contracts';
import { newId, openDatabase } from '@kg/db';
import { createLogger } from '@kg/logger';
import { createMemoryVectorIndex } from '@kg/vectors';
import { searchMigrations } from '../module';
import { applyNodeEvent } from '../consumers/node-events';
import { indexingProgress } from '../store/documents';
import { fakeGraph, indexedNode, testEmbedder } from '../testing';
import { directEmbedder } from '../tenant-embedder';
import { graphNodeSource } from '../graph-calls';
import { createIndexer, type IndexedNode } from './indexer';
import { createIndexWorker } from './worker';

const tenant = 'tnt_01jd8x6q1bf5r3v2m9w7k4t0za';
const logger = createLogger('t', 'silent');

const created = (n: IndexedNode): NodeEvent => ({
  id: newEventId(),
  tenant_id: tenant,
  occurred_at: '2026-01-01T00:00:00.000Z',
  version: 1,
  type: 'node.created',
  data: {
    node: { ...n, tags: [], status: 'raw', source_capture_id: null },
  },
});
const deleted = (nodeId: string): NodeEvent => ({
  id: newEventId(),
  tenant_id: tenant,
  occurred_at: '2026-01-01T00:00:00.000Z',
  version: 2,
  type: 'node.deleted',
  data: { node_id: nodeId, unlinked_ids: [] },
});

/** An indexer over a fresh database whose model holds every call until `release`, and counts what it saw. */
async function setup(count: number) {
  const database = await openDatabase({ dataDir: null });
  await database.migrate(searchMigrations);
  const vectors = createMemoryVectorIndex();
  const graphNodes = new Map([[tenant, new Map<string, IndexedNode>()]]);
  const base = testEmbedder();
  const seen: string[] = [];
  let waiting = 0;
  let mostWaiting = 0;
  let release!: () => void;
  let held = new Promise<void>((r) => (release = r));
  const model = {
    ...base,
    embed: async (texts: string[], kind: 'query' | 'passage') => {
      seen.push(...texts);
      waiting += 1;
      mostWaiting = Math.max(mostWaiting, waiting);
      await held;
      waiting -= 1;
      return base.embed(texts, kind);
    },
  };
  const indexer = createIndexer({
    db: database.db,
    vectors,
    embedder: directEmbedder(model as never),
    nodes: graphNodeSource(fakeGraph(graphNodes)),
    logger,
    batchSize: 8,
  });
  await indexer.ensureCollection();
  const ids = Array.from({ length: count }, () => newId('node'));
  for (const [i, id] of ids.entries()) {
    const n = indexedNode(id, `note number ${i}`);
    graphNodes.get(tenant)!.set(id, n);
    await applyNodeEvent(database.db, created(n));
  }
  return {
    database,
    vectors,
    indexer,
    ids,
    seen,
    mostWaiting: () => mostWaiting,
    /** Lets every held call through, now and from then on. */
    releaseAll: () => {
      release();
      held = Promise.resolve();
    },
    progress: () => indexingProgress(database.db, base.model, tenant),
  };
}

describe('indexing passes at once', () => {
  it('two passes started together take different nodes, and each node is embedded once', async () => {
    const s = await setup(16);
    const a = s.indexer.runPass();
    const b = s.indexer.runPass();
    await new Promise((r) => setTimeout(r, 50));
    expect(s.mostWaiting()).toBe(16); // both passes' nodes wait for the model at once (8 each)
    s.releaseAll();
    expect([await a, await b]).toEqual([8, 8]);
    expect(new Set(s.seen).size).toBe(16);
    expect(s.seen).toHaveLength(16);
    expect(await s.indexer.runPass()).toBe(0);
    expect(await s.progress()).toMatchObject({ total: 16, embedded: 16 });
    await s.database.close();
  });

  it('the worker keeps two passes in flight and indexes everything once', async () => {
    const s = await setup(40);
    const health = { failed: () => undefined, recovered: () => undefined } as never;
    const worker = createIndexWorker(s.indexer, 10_000, logger, { health, onMismatch: () => undefined });
    const run = worker.runOnce();
    await new Promise((r) => setTimeout(r, 50));
    expect(s.mostWaiting()).toBe(16); // two passes of 8, not one
    s.releaseAll();
    expect(await run).toBe(40);
    expect(s.seen).toHaveLength(40);
    expect(new Set(s.seen).size).toBe(40);
    expect(await s.progress()).toMatchObject({ total: 40, embedded: 40 });
    await s.database.close();
  });

  it("a pass's tombstones leave the vector index in one call", async () => {
    const s = await setup(5);
    s.releaseAll();
    while ((await s.indexer.runPass()) > 0);
    const deletes: string[][] = [];
    const remove = s.vectors.delete.bind(s.vectors);
    s.vectors.delete = async (collection, ids) => {
      deletes.push([...ids]);
      return remove(collection, ids);
    };
    for (const id of s.ids.slice(0, 3)) await applyNodeEvent(s.database.db, deleted(id));
    expect(await s.indexer.runPass()).toBe(3);
    expect(deletes.map((ids) => ids.sort())).toEqual([s.ids.slice(0, 3).sort()]);
    expect(await s.indexer.runPass()).toBe(0);
    expect(await s.progress()).toMatchObject({ total: 2, embedded: 2 });
    await s.database.close();
  });
});
