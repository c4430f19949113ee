import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NodeEvent } from '@kg/contracts';
import { newEventId } from '@kg/bus';
import { newId, openDatabase, type Database } from '@kg/db';
import { createMemoryVectorIndex, VectorIndexUnavailableError, type VectorIndex } from '@kg/vectors';
import { searchMigrations } from '../module';
import { applyNodeEvent } from '../consumers/node-events';
import { documents } from '../store/schema';
import { graphNodeSource } from '../graph-calls';
import { fakeGraph, testEmbedder } from '../testing';
import { nodesCollection, type IndexedNode } from '../indexing/indexer';
import { EXIT, runReindex, type ReindexTarget } from './cli';

const T = 'tnt_01jd8x6q1bf5r3v2m9w7k4t0za';
const OTHER = 'tnt_01jd8x6q1bf5r3v2m9w7k4t0zb';
const UNKNOWN = 'tnt_01jd8x6q1bf5r3v2m9w7k4t0zc';
const collection = nodesCollection('test-bow-256', 256);

let database: Database;
const graphNodes = new Map<string, Map<string, IndexedNode>>([
  [T, new Map()],
  [OTHER, new Map()],
]);
let version = 1;
beforeAll(async () => {
  database = await openDatabase({ dataDir: null });
  await database.migrate(searchMigrations);
  for (const [tenantId, count] of [
    [T, 12],
    [OTHER, 3],
  ] as const)
    for (let i = 0; i < count; i += 1) {
      const id = newId('node');
      const n: IndexedNode = {
        id,
        title: `Note ${i}`,
        summary: '',
        body_markdown: `body ${i}`,
        status: 'raw',
        para_item_ids: [],
        source_capture_id: null,
        updated_at: '2026-01-01T00:00:00.000Z',
      };
      graphNodes.get(tenantId)!.set(id, n);
      const event = {
        id: newEventId(),
        tenant_id: tenantId,
        occurred_at: '2026-01-01T00:00:00.000Z',
        version: (version += 1),
        type: 'node.created',
        data: {
          node: {
            id,
            title: n.title,
            summary: '',
            tags: [],
            status: 'raw',
            para_item_ids: [],
            updated_at: n.updated_at,
          },
        },
      } as NodeEvent;
      await applyNodeEvent(database.db, event);
    }
}, 60_000);
afterAll(() => database.close());

function target(vectors: VectorIndex = createMemoryVectorIndex()): ReindexTarget & { closed: boolean } {
  const t = {
    where: 'test database, in-process index',
    db: database.db,
    vectors,
    embedder: testEmbedder(),
    nodes: graphNodeSource(fakeGraph(graphNodes)),
    closed: false,
    close: async () => {
      t.closed = true;
    },
  };
  return t;
}

async function run(argv: string[], t = target()) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runReindex(argv, async () => t, { out: (l) => out.push(l), err: (l) => err.push(l) });
  return { code, out, err, target: t };
}

/** No stack trace, no `Error:` dump: lines the operator reads. */
const noStack = (lines: string[]) => expect(lines.join('\n')).not.toMatch(/\n\s+at |Error: /);

describe('npm run reindex', () => {
  it('rebuilds the tenant, printing progress and a summary, and leaves the other tenant alone', async () => {
    const vectors = createMemoryVectorIndex();
    await vectors.ensureCollection(collection, 256);
    const before = await run(['--tenant', OTHER], target(vectors));
    expect(before.code).toBe(EXIT.ok);
    const { code, out, err, target: t } = await run(['--tenant', T], target(vectors));
    expect(err).toEqual([]);
    expect(code).toBe(EXIT.ok);
    expect(out[0]).toBe('reindex: test database, in-process index, model test-bow-256 (256 dimensions)');
    expect(out).toContainEqual(expect.stringMatching(new RegExp(`^reindex ${T}: 12/12 nodes, [0-9.]+/s, [0-9.]+ s$`)));
    expect(out.at(-1)).toMatch(
      new RegExp(`^reindex ${T}: done: 12 of 12 nodes embedded into ${collection}, 0 vectors removed`),
    );
    expect(await vectors.count(collection, { tenant_id: T })).toBe(12);
    expect(await vectors.count(collection, { tenant_id: OTHER })).toBe(3);
    expect(t.closed).toBe(true);
  });

  it('an unknown tenant: exit 3 and one line, no stack trace, nothing written', async () => {
    const { code, out, err, target: t } = await run(['--tenant', UNKNOWN]);
    expect(code).toBe(EXIT.unknownTenant);
    expect(err).toEqual([
      `reindex: tenant ${UNKNOWN} is unknown to search: no node of it was ever indexed (check the tenant id)`,
    ]);
    noStack([...out, ...err]);
    expect(await t.vectors.count(collection, { tenant_id: UNKNOWN })).toBe(0);
    expect(t.closed).toBe(true);
  });

  it.each([
    [[], /name a tenant/],
    [['--tenant'], /argument missing|requires|value/i],
    [['--tenant', 'x'], /"x" is not a tenant id/],
    [['--tenant', "tnt_'; drop table search.documents; --"], /is not a tenant id/],
    [['--all', '--tenant', T], /exclude each other/],
    [['--tenants', T], /Unknown option '--tenants'/],
    [[T], /Unexpected argument|positional/i],
  ])('bad arguments %j: exit 2 with the usage, nothing opened', async (argv, message) => {
    let opened = false;
    const err: string[] = [];
    const code = await runReindex(
      argv,
      async () => {
        opened = true;
        return target();
      },
      { out: () => undefined, err: (l) => err.push(l) },
    );
    expect(code).toBe(EXIT.usage);
    expect(err[0]).toMatch(message);
    expect(err[1]).toMatch(/^usage: npm run reindex/);
    expect(opened).toBe(false);
    noStack(err);
  });

  it('the vector index unreachable: exit 1, one line naming QDRANT_URL', async () => {
    const down: VectorIndex = {
      ...createMemoryVectorIndex(),
      kind: 'qdrant',
      ensureCollection: () =>
        Promise.reject(
          new VectorIndexUnavailableError(
            'unreachable',
            'vectors: qdrant collection exists failed: fetch failed (ECONNREFUSED) (check QDRANT_URL and that Qdrant is up)',
          ),
        ),
    };
    const { code, err } = await run(['--tenant', T], target(down));
    expect(code).toBe(EXIT.failed);
    expect(err).toEqual([expect.stringMatching(/^reindex: the vector index cannot answer: .*QDRANT_URL/)]);
    noStack(err);
  });

  it('a collection of another vector size: exit 1, one line naming the collection and the setting', async () => {
    const vectors = createMemoryVectorIndex();
    await vectors.ensureCollection(collection, 3);
    const { code, err } = await run(['--tenant', T], target(vectors));
    expect(code).toBe(EXIT.failed);
    expect(err).toHaveLength(1);
    expect(err[0]).toMatch(new RegExp(`^reindex: vectors: collection ${collection} exists with 3 dimensions, not 256`));
    expect(await vectors.count(collection, { tenant_id: T })).toBe(0);
  });

  it('--drop-old-collections keeps them while the current collection is incomplete, and drops them after --all', async () => {
    // As after a model change: no document embedded with the current model yet.
    await database.db.update(documents).set({ embeddedVersion: null, embeddedModel: null });
    const vectors = createMemoryVectorIndex();
    await vectors.ensureCollection('kg_nodes_d384', 384);
    const kept = await run(['--drop-old-collections'], target(vectors));
    expect(kept.code).toBe(EXIT.failed);
    expect(kept.err).toEqual([
      expect.stringMatching(/^reindex: old collections kept: .* holds 0 of 15 nodes; run npm run reindex -- --all/),
    ]);
    expect(await vectors.collections()).toContain('kg_nodes_d384');
    const done = await run(['--all', '--drop-old-collections'], target(vectors));
    expect(done.err).toEqual([]);
    expect(done.code).toBe(EXIT.ok);
    expect(done.out).toContain('reindex: 2 tenants with nodes');
    expect(done.out.at(-1)).toBe(`reindex: dropped kg_nodes_d384 (kept ${collection})`);
    expect(await vectors.collections()).toEqual([collection]);
  });
});
