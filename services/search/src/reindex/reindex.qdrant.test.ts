import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { NodeEvent } from '@kg/contracts';
import { newEventId } from '@kg/bus';
import { newId, openDatabase, type Database } from '@kg/db';
import { createLogger } from '@kg/logger';
import { createQdrantVectorIndex, type VectorIndex } from '@kg/vectors';
import { searchMigrations } from '../module';
import { applyNodeEvent } from '../consumers/node-events';
import { graphNodeSource } from '../graph-calls';
import { fakeGraph, testEmbedder } from '../testing';
import { directEmbedder } from '../tenant-embedder';
import { createIndexer, nodesCollection, type IndexedNode } from '../indexing/indexer';
import { EXIT, runReindex, type ReindexTarget } from './cli';
import { dropOldCollections, reindexTenant, UnknownTenantError } from './reindex';

/**
 * The re-index against a real Qdrant (../shared/bin/qdrant or QDRANT_BIN) of this suite's own,
 * with an API key (its own ports and data folder, stopped after the suite).
 */
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../..');
const script = path.join(root, 'scripts/infra/qdrant.sh');
const port = Number(process.env['KG_QDRANT_PORT'] ?? '56333') + 300;
const apiKey = 'kg-reindex-test-key';
const env = {
  ...process.env,
  KG_INFRA_DIR: `/tmp/kg-infra-reindex-${process.pid}`,
  KG_QDRANT_PORT: String(port),
  KG_QDRANT_GRPC_PORT: String(port + 1),
  QDRANT__SERVICE__API_KEY: apiKey,
};
const url = `http://127.0.0.1:${port}`;
const sh = (cmd: string) => execFileSync('bash', [script, cmd], { stdio: 'inherit', env });
const A = 'tnt_01jd8x6q1bf5r3v2m9w7k4t0za';
const B = 'tnt_01jd8x6q1bf5r3v2m9w7k4t0zb';
const logger = createLogger('test', 'silent');

let database: Database;
let vectors: VectorIndex;
const graphNodes = new Map<string, Map<string, IndexedNode>>([
  [A, new Map()],
  [B, new Map()],
]);
const nodes = graphNodeSource(fakeGraph(graphNodes));
let version = 1;

beforeAll(async () => {
  // The client warns that an API key travels over plain HTTP (loopback here).
  vi.spyOn(console, 'warn').mockImplementation(() => undefined);
  sh('start');
  vectors = createQdrantVectorIndex({ url, apiKey, timeoutMs: 10_000 });
  database = await openDatabase({ dataDir: null });
  await database.migrate(searchMigrations);
  for (const [tenantId, count] of [
    [A, 1234],
    [B, 40],
  ] as const)
    for (let i = 0; i < count; i += 1) {
      const id = newId('node');
      const n: IndexedNode = {
        id,
        title: `Note ${i} ${tenantId.slice(-1)}`,
        summary: '',
        body_markdown: `words${i % 97} body${i} topic${i % 13}`,
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
}, 180_000);
afterAll(async () => {
  vi.restoreAllMocks();
  await database?.close();
  sh('stop');
  execFileSync('rm', ['-rf', env.KG_INFRA_DIR]);
}, 60_000);

describe('re-index on a real Qdrant', () => {
  it("a tenant's vectors deleted: the re-index brings back one per node (count == nodes), other tenants untouched", async () => {
    const indexer = createIndexer({
      db: database.db,
      vectors,
      embedder: directEmbedder(testEmbedder()),
      nodes,
      logger,
      batchSize: 500,
    });
    await indexer.ensureCollection();
    while ((await indexer.runPass()) > 0);
    const collection = indexer.collection;
    expect(await vectors.count(collection, { tenant_id: A })).toBe(1234);
    const before = (await vectors.ids(collection, { tenant_id: B })).sort();

    await vectors.deleteByFilter(collection, { tenant_id: A });
    await vectors.upsert(collection, [{ id: 'node_stray', vector: Array(256).fill(0.5), payload: { tenant_id: A } }]);
    expect(await vectors.count(collection, { tenant_id: A })).toBe(1);

    const out: string[] = [];
    const err: string[] = [];
    const target: ReindexTarget = {
      where: 'test',
      db: database.db,
      vectors,
      embedder: testEmbedder(),
      nodes,
      close: async () => undefined,
    };
    const code = await runReindex(['--tenant', A], async () => target, {
      out: (l) => out.push(l),
      err: (l) => err.push(l),
    });
    expect(err).toEqual([]);
    expect(code).toBe(EXIT.ok);
    expect(out.filter((l) => /\/1234 nodes/.test(l))).toHaveLength(13); // one line per batch of 100
    expect(out.at(-1)).toMatch(/done: 1234 of 1234 nodes embedded into .*, 1 vectors removed/);
    expect(await vectors.count(collection, { tenant_id: A })).toBe(1234);
    expect((await vectors.ids(collection, { tenant_id: A })).sort()).toEqual([...graphNodes.get(A)!.keys()].sort());
    expect(await vectors.count(collection, { tenant_id: B })).toBe(40);
    expect((await vectors.ids(collection, { tenant_id: B })).sort()).toEqual(before);
    expect(before).toHaveLength(40);
  }, 180_000);

  it('an unknown tenant: UnknownTenantError, nothing written', async () => {
    const collection = nodesCollection('test-bow-256', 256);
    const err = await reindexTenant(
      { db: database.db, vectors, embedder: testEmbedder(), nodes },
      'tnt_01jd8x6q1bf5r3v2m9w7k4t0zz',
    ).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(UnknownTenantError);
    expect(await vectors.count(collection, { tenant_id: 'tnt_01jd8x6q1bf5r3v2m9w7k4t0zz' })).toBe(0);
  });

  it('after a model change: --all fills the new collection, then the old one is dropped (only it)', async () => {
    const old = nodesCollection('test-bow-256', 256);
    await vectors.ensureCollection('unrelated', 3);
    const embedder = testEmbedder('test-bow-256-v2');
    const early = await dropOldCollections({ db: database.db, vectors, embedder });
    expect(early).toMatchObject({ dropped: [], incomplete: { total: 1274, embedded: 0 } });
    for (const tenantId of [A, B]) await reindexTenant({ db: database.db, vectors, embedder, nodes }, tenantId);
    const current = nodesCollection('test-bow-256-v2', 256);
    expect(await vectors.count(current, { tenant_id: A })).toBe(1234);
    expect(await vectors.count(current, { tenant_id: B })).toBe(40);
    expect(await dropOldCollections({ db: database.db, vectors, embedder })).toEqual({ current, dropped: [old] });
    expect(await vectors.collections()).toEqual([current, 'unrelated'].sort());
  }, 180_000);

  it('a wrong QDRANT_API_KEY: exit 1 with one line naming it, no stack trace', async () => {
    const err: string[] = [];
    const code = await runReindex(
      ['--tenant', A],
      async () => ({
        where: 'test',
        db: database.db,
        vectors: createQdrantVectorIndex({ url, apiKey: 'wrong-key' }),
        embedder: testEmbedder(),
        nodes,
        close: async () => undefined,
      }),
      { out: () => undefined, err: (l) => err.push(l) },
    );
    expect(code).toBe(EXIT.failed);
    expect(err).toHaveLength(1);
    expect(err[0]).toMatch(
      /^reindex: the vector index cannot answer: .*Qdrant refused the API key: check QDRANT_API_KEY/,
    );
    expect(err[0]).not.toContain('wrong-key');
  });
});
