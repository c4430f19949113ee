import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { pino } from 'pino';
import { searchApi, type NodeEvent } from '@kg/contracts';
import { createMemoryBus, newEventId } from '@kg/bus';
import { newId, openDatabase, type Database } from '@kg/db';
import { connectService } from '@kg/trpc';
import { createQdrantVectorIndex } from '@kg/vectors';
import { createSearchModule, searchMigrations } from './module';
import { fakeGraph, testEmbedder } from './testing';
import { applyNodeEvent } from './consumers/node-events';
import { nodesCollection, type IndexedNode } from './indexing/indexer';

/**
 * The search service on a real Qdrant (../shared/bin/qdrant or QDRANT_BIN, started by
 * scripts/infra/qdrant.sh) of this suite's own (other ports and data folder), so that killing
 * it disturbs nothing else: started after the service, killed with SIGKILL while nodes are
 * written, restarted on its storage.
 */
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const script = path.join(root, 'scripts/infra/qdrant.sh');
const port = Number(process.env['KG_QDRANT_PORT'] ?? '56333') + 200;
const env = {
  ...process.env,
  KG_INFRA_DIR: `/tmp/kg-infra-search-${process.pid}`,
  KG_QDRANT_PORT: String(port),
  KG_QDRANT_GRPC_PORT: String(port + 1),
};
const sh = (cmd: string) => execFileSync('bash', [script, cmd], { stdio: 'inherit', env });
const tenant = 'tnt_01jd8x6q1bf5r3v2m9w7k4t0za';

let database: Database;
beforeAll(async () => {
  database = await openDatabase({ dataDir: null });
  await database.migrate(searchMigrations);
}, 60_000);
afterAll(async () => {
  await database.close();
  sh('stop');
  execFileSync('rm', ['-rf', env.KG_INFRA_DIR]);
}, 60_000);

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
      summary: '',
      tags: [],
      status: 'raw',
      para_item_ids: [],
      updated_at: n.updated_at,
    },
  },
});

describe('search on a real Qdrant that starts late, dies and comes back', () => {
  it('starts without it, falls back while it is down, and finds every node once it is back', async () => {
    const lines: Array<{ level: number; msg: string; diagnostic?: string }> = [];
    const logger = pino(
      { level: 'info' },
      new Writable({
        write(chunk: Buffer, _enc, done) {
          for (const line of chunk.toString().split('\n')) if (line) lines.push(JSON.parse(line) as never);
          done();
        },
      }),
    );
    const vectors = createQdrantVectorIndex({ url: `http://127.0.0.1:${port}`, timeoutMs: 3_000 });
    const graphNodes = new Map([[tenant, new Map<string, IndexedNode>()]]);
    const graph = fakeGraph(graphNodes, (t, q) =>
      [...graphNodes.get(t)!.values()]
        .filter((n) => n.title.toLowerCase().includes(q.toLowerCase()))
        .map((n, i) => ({ id: n.id, score: 10 - i })),
    );
    const embedder = testEmbedder();
    // Qdrant is not started yet: the service starts all the same, ready but degraded.
    const module = await createSearchModule({
      database,
      bus: createMemoryBus(logger),
      logger,
      vectors,
      embedder,
      graph,
      indexIntervalMs: 50,
      indexBackoffMs: { first: 200, max: 1000 },
    });
    const search = connectService('gateway', 'search', searchApi, { kind: 'local', router: module.router }).as({
      tenantId: tenant,
      subject: 'usr_x',
      credential: { kind: 'jwt', id: 'j' },
    });
    const write = async (n: IndexedNode) => {
      graphNodes.get(tenant)!.set(n.id, n);
      await applyNodeEvent(database.db, created(n));
    };
    const query = (mode: 'semantic' | 'hybrid', text: string) =>
      search.nodes.search({ query: text, mode, page: 1, per_page: 50 });
    const outages = () => lines.filter((l) => l.msg.includes('vector index is unavailable'));
    const found = (text: string, ids: string[]) =>
      vi.waitFor(
        async () => {
          const hits = (await query('semantic', text)).hits.map((h) => h.id);
          if (!ids.every((id) => hits.includes(id))) throw new Error(`not all indexed yet: ${hits.length}`);
        },
        { timeout: 30_000, interval: 100 },
      );

    expect(await module.ready()).toBe(true);
    expect(await module.degraded!()).toEqual(['vectors']);
    expect(outages()).toHaveLength(1);
    expect(outages()[0]!.diagnostic).toMatch(/ECONNREFUSED.*QDRANT_URL/);
    expect(lines.filter((l) => l.level >= 50)).toEqual([]);
    const first = node(newId('node'), 'Sourdough starter', 'flour water levain');
    await write(first);
    await module.start();
    await expect(query('semantic', 'levain')).rejects.toMatchObject({
      data: { httpStatus: 503, problem: { retryAfterSeconds: 5 } },
    });
    expect(await query('hybrid', 'sourdough')).toMatchObject({ hits: [{ id: first.id }], fallback: 'keyword' });

    sh('start');
    await found('flour water levain', [first.id]);
    expect(await module.degraded!()).toEqual([]);
    expect((await query('hybrid', 'sourdough')).fallback).toBeUndefined();
    expect(lines.filter((l) => l.msg.includes('semantic search is back'))).toHaveLength(1);

    // Killed: semantic answers 503, hybrid falls back, writes go on and stay pending.
    process.kill(Number(readFileSync(`${env.KG_INFRA_DIR}/qdrant.pid`, 'utf8')), 'SIGKILL');
    await expect.poll(() => vectors.ready(), { timeout: 10_000 }).toBe(false);
    const during = Array.from({ length: 20 }, (_, i) => node(newId('node'), `Kombucha ${i}`, `scoby tea batch${i}`));
    for (const n of during) await write(n);
    await expect(query('semantic', 'scoby tea')).rejects.toMatchObject({ data: { httpStatus: 503 } });
    const fallback = await query('hybrid', 'kombucha');
    expect(fallback.fallback).toBe('keyword');
    expect(fallback.total).toBe(20);
    expect(await module.ready()).toBe(true);
    expect(await module.degraded!()).toEqual(['vectors']);

    // Back on its storage: the first node's vector kept, the ones written meanwhile indexed.
    sh('start');
    await found(
      'scoby tea',
      during.map((n) => n.id),
    );
    await found('flour water levain', [first.id]);
    const collection = nodesCollection(embedder.model, embedder.dimensions);
    expect(await vectors.count(collection, { tenant_id: tenant })).toBe(21);
    expect(outages()).toHaveLength(2);
    expect(lines.filter((l) => l.msg.includes('semantic search is back'))).toHaveLength(2);
    expect(lines.filter((l) => l.level >= 50)).toEqual([]);
    await module.stop();
  }, 120_000);
});
