import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { NodeEvent } from '@kg/contracts';
import { newEventId } from '@kg/bus';
import { EmbeddingsError, type Embedder } from '@kg/embeddings';
import { newId, openDatabase, type Database } from '@kg/db';
import { createLogger } from '@kg/logger';
import { createMemoryVectorIndex } from '@kg/vectors';
import { searchMigrations } from '../module';
import { applyNodeEvent } from '../consumers/node-events';
import { fakeGraph, indexedNode, testEmbedder } from '../testing';
import { graphNodeSource } from '../graph-calls';
import { findDocumentRow } from '../store/documents';
import { directEmbedder } from '../tenant-embedder';
import { createIndexer, type IndexedNode } from './indexer';
import { EMBED_MAX_FAILURES, planAfterFailure } from './retry';

const tenant = 'tnt_01jd8x6q1bf5r3v2m9w7k4t0zc';
let database: Database;
beforeAll(async () => {
  database = await openDatabase({ dataDir: null });
  await database.migrate(searchMigrations);
}, 60_000);
afterAll(() => database.close());

let version = 1;
const node = (id: string, title: string) => indexedNode(id, title);
const event = (n: IndexedNode): NodeEvent => ({
  id: newEventId(),
  tenant_id: tenant,
  occurred_at: '2026-01-01T00:00:00.000Z',
  version: (version += 1),
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
});

/** The test embedder, failing on every text that holds "poison" with `error()`. */
function poisoned(model: string, error: () => Error) {
  const inner = testEmbedder(model);
  const attempts: string[] = [];
  const embedder: Embedder = {
    model,
    dimensions: inner.dimensions,
    async embed(texts, kind) {
      attempts.push(...texts);
      if (texts.some((t) => t.includes('poison'))) throw error();
      return inner.embed(texts, kind);
    },
    close: async () => {},
  };
  return { embedder, attempts };
}

function rig(model: string, error: () => Error, graphNodes = new Map([[tenant, new Map<string, IndexedNode>()]])) {
  const logger = createLogger('test', 'silent');
  const warn = vi.spyOn(logger, 'warn');
  const clock = { now: Date.parse('2026-03-01T00:00:00Z') };
  const { embedder, attempts } = poisoned(model, error);
  const vectors = createMemoryVectorIndex();
  const indexer = createIndexer({
    db: database.db,
    vectors,
    embedder: directEmbedder(embedder),
    nodes: graphNodeSource(fakeGraph(graphNodes)),
    logger,
    now: () => clock.now,
  });
  const write = async (n: IndexedNode) => {
    graphNodes.get(tenant)!.set(n.id, n);
    await applyNodeEvent(database.db, event(n));
  };
  const drain = async () => {
    while ((await indexer.runPass()) > 0);
  };
  const tries = (title: string) => attempts.filter((t) => t.includes(title)).length;
  return { indexer, write, drain, clock, warn, tries, vectors, graphNodes };
}

describe('indexing a node the embedder fails on', () => {
  it('backs off, stops after a bound, logs once by id (not text), and never blocks the other nodes', async () => {
    const r = rig('model-p1', () => new Error('onnx exploded'));
    await r.indexer.ensureCollection();
    const bad = node(newId('node'), 'poison pill secret text');
    const good = node(newId('node'), 'ordinary note');
    await r.write(bad);
    await r.write(good);
    await r.drain();
    expect(r.tries('poison')).toBe(1);
    expect((await findDocumentRow(database.db, tenant, good.id))?.embeddedVersion).not.toBeNull();
    // Passes inside the back-off do not try it again.
    await r.drain();
    await r.drain();
    expect(r.tries('poison')).toBe(1);
    // 30 s, 2, 8, 32 minutes later: attempts 2 to 5, then none however long we wait.
    for (const minutes of [0.5, 2, 8, 32, 60, 600]) {
      r.clock.now += minutes * 60_000;
      await r.drain();
    }
    expect(r.tries('poison')).toBe(EMBED_MAX_FAILURES);
    expect((await findDocumentRow(database.db, tenant, bad.id))?.embedFailures).toBe(EMBED_MAX_FAILURES);
    expect(r.warn).toHaveBeenCalledTimes(1);
    const [fields] = r.warn.mock.calls[0]! as [Record<string, unknown>];
    expect(fields).toMatchObject({ nodeId: bad.id, tenantId: tenant, error: 'Error' });
    expect(JSON.stringify(r.warn.mock.calls)).not.toMatch(/poison|secret|exploded/);

    // A new version of the node is tried again at once (and succeeds once the text is fine).
    await r.write({ ...bad, title: 'cured note' });
    await r.drain();
    const row = await findDocumentRow(database.db, tenant, bad.id);
    expect(row?.embeddedVersion).toBe(row?.version);
    expect(row?.embedFailures).toBe(0);
  });

  it('a node given up on with one model is tried again when the model changes', async () => {
    const r = rig('model-p2', () => new EmbeddingsError('provider answered 400', false));
    await r.indexer.ensureCollection();
    const bad = node(newId('node'), 'poison again');
    await r.write(bad);
    for (let i = 0; i < 8; i += 1) {
      await r.drain();
      r.clock.now += 3600_000;
    }
    expect(r.tries('poison')).toBe(EMBED_MAX_FAILURES);
    const other = rig('model-p3', () => new EmbeddingsError('provider answered 400', false), r.graphNodes);
    await other.indexer.ensureCollection();
    await other.drain();
    expect(other.tries('poison')).toBe(1);
  });

  it('a retryable failure (the provider, not the text) ends the pass and backs off without a bound', async () => {
    const r = rig('model-p4', () => new EmbeddingsError('provider timed out', true));
    await r.indexer.ensureCollection();
    await r.write(node(newId('node'), 'poison during an outage'));
    expect(await r.indexer.runPass()).toBe(0);
    for (let i = 0; i < EMBED_MAX_FAILURES + 3; i += 1) {
      r.clock.now += 3600_000;
      await r.drain();
    }
    expect(r.tries('poison')).toBe(EMBED_MAX_FAILURES + 4);
  });

  it('plans delays of 30 s × 4^(n−1), capped at an hour', () => {
    const at = 0;
    const delays = [0, 1, 2, 3, 4, 5].map((n) =>
      planAfterFailure(n, new EmbeddingsError('x', true), at).retryAt!.getTime(),
    );
    expect(delays).toEqual([30_000, 120_000, 480_000, 1_920_000, 3_600_000, 3_600_000]);
    expect(planAfterFailure(EMBED_MAX_FAILURES - 1, new Error('x'), at).retryAt).toBeNull();
  });
});
