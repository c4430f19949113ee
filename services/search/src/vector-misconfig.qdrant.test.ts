import { execFileSync } from 'node:child_process';
import { Writable } from 'node:stream';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { pino } from 'pino';
import { searchApi, type NodeEvent } from '@kg/contracts';
import { createMemoryBus, newEventId } from '@kg/bus';
import { newId, openDatabase, type Database } from '@kg/db';
import { connectService } from '@kg/trpc';
import { createQdrantVectorIndex, type VectorIndex } from '@kg/vectors';
import { createSearchModule, SearchStartError, searchMigrations } from './module';
import { fakeGraph, testEmbedder } from './testing';
import { nodesCollection, type IndexedNode } from './indexing/indexer';
import { applyNodeEvent } from './consumers/node-events';

/**
 * Misconfiguration of the vector index, against a real Qdrant with an API key of this suite's
 * own (ports and data folder of its own, stopped after the suite): a wrong QDRANT_API_KEY,
 * and a collection that exists with another vector size or distance.
 */
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const script = path.join(root, 'scripts/infra/qdrant.sh');
const port = Number(process.env['KG_QDRANT_PORT'] ?? '56333') + 400;
const apiKey = 'kg-misconfig-test-key';
const env = {
  ...process.env,
  KG_INFRA_DIR: `/tmp/kg-infra-misconfig-${process.pid}`,
  KG_QDRANT_PORT: String(port),
  KG_QDRANT_GRPC_PORT: String(port + 1),
  QDRANT__SERVICE__API_KEY: apiKey,
};
const url = `http://127.0.0.1:${port}`;
const sh = (cmd: string) => execFileSync('bash', [script, cmd], { stdio: 'inherit', env });
const tenant = 'tnt_01jd8x6q1bf5r3v2m9w7k4t0za';
const identity = { tenantId: tenant, subject: 'usr_x', credential: { kind: 'jwt' as const, id: 'j' } };

async function rest(method: string, pathname: string, body?: unknown) {
  const res = await fetch(`${url}${pathname}`, {
    method,
    headers: { 'content-type': 'application/json', 'api-key': apiKey },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const json = (await res.json()) as { result: Record<string, unknown> };
  if (!res.ok) throw new Error(`${method} ${pathname}: ${res.status} ${JSON.stringify(json)}`);
  return json.result;
}

function captured() {
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
  return { logger, lines };
}

let database: Database;
beforeAll(async () => {
  // The client warns that an API key travels over plain HTTP (loopback here).
  vi.spyOn(console, 'warn').mockImplementation(() => undefined);
  sh('start');
  database = await openDatabase({ dataDir: null });
  await database.migrate(searchMigrations);
}, 120_000);
afterAll(async () => {
  vi.restoreAllMocks();
  await database?.close();
  sh('stop');
  execFileSync('rm', ['-rf', env.KG_INFRA_DIR]);
}, 60_000);

describe('search on a real Qdrant that is misconfigured', () => {
  it('a wrong QDRANT_API_KEY: starts ready but degraded, one warning naming QDRANT_API_KEY however often indexing retries, semantic 503, hybrid keyword, nothing created', async () => {
    const { logger, lines } = captured();
    const embedder = testEmbedder();
    let attempts = 0;
    const refused = createQdrantVectorIndex({ url, apiKey: 'wrong-key', timeoutMs: 3000 });
    // Each attempt to make the collection starts by listing the collections (module.ts refillingGate).
    const counted: VectorIndex = {
      ...refused,
      collections: () => {
        attempts += 1;
        return refused.collections();
      },
    };
    const module = await createSearchModule({
      database,
      bus: createMemoryBus(logger),
      logger,
      vectors: counted,
      embedder,
      graph: fakeGraph(new Map([[tenant, new Map()]])),
      indexIntervalMs: 20,
      indexBackoffMs: { first: 20, max: 40 },
    });
    await module.start();
    await vi.waitFor(() => expect(attempts).toBeGreaterThanOrEqual(5), { timeout: 20_000, interval: 20 });
    expect(await module.ready()).toBe(true);
    expect(await module.degraded!()).toEqual(['vectors']);
    const search = connectService('gateway', 'search', searchApi, { kind: 'local', router: module.router }).as(
      identity,
    );
    await expect(search.nodes.search({ query: 'tea', mode: 'semantic', page: 1, per_page: 10 })).rejects.toMatchObject({
      data: { httpStatus: 503 },
    });
    expect(await search.nodes.search({ query: 'tea', mode: 'hybrid', page: 1, per_page: 10 })).toMatchObject({
      fallback: 'keyword',
    });
    const loud = lines.filter((l) => l.level >= 40);
    expect(loud).toHaveLength(1);
    expect(loud[0]!.level).toBe(40);
    expect(loud[0]!['diagnostic']).toMatch(/Qdrant refused the API key: check QDRANT_API_KEY/);
    expect(JSON.stringify(lines)).not.toContain('wrong-key');
    expect(JSON.stringify(loud)).not.toMatch(/"stack"/);
    await module.stop();
    const { collections } = (await rest('GET', '/collections')) as { collections: Array<{ name: string }> };
    expect(collections.map((c) => c.name)).not.toContain(nodesCollection(embedder.model, embedder.dimensions));
  }, 60_000);

  it('the collection deleted while search runs: semantic 503 and hybrid keyword (never a 500), one warning saying to restart; restarted, search makes it anew and embeds every node again', async () => {
    const { logger, lines } = captured();
    const embedder = testEmbedder('test-bow-256-deleted');
    const collection = nodesCollection(embedder.model, embedder.dimensions);
    const other = 'tnt_01jd8x6q1bf5r3v2m9w7k4t0zd'; // a tenant of this test only (the database is shared)
    const graphNodes = new Map([[other, new Map<string, IndexedNode>()]]);
    const kombucha: IndexedNode = {
      id: newId('node'),
      title: 'Kombucha scoby',
      summary: '',
      body_markdown: 'fermented tea',
      status: 'raw',
      para_item_ids: [],
      source_capture_id: null,
      updated_at: '2026-01-01T00:00:00.000Z',
    };
    graphNodes.get(other)!.set(kombucha.id, kombucha);
    await applyNodeEvent(database.db, {
      id: newEventId(),
      tenant_id: other,
      occurred_at: kombucha.updated_at,
      version: 1,
      type: 'node.created',
      data: {
        node: {
          id: kombucha.id,
          title: kombucha.title,
          summary: '',
          tags: [],
          status: 'raw',
          para_item_ids: [],
          updated_at: kombucha.updated_at,
        },
      },
    } as NodeEvent);
    const graph = fakeGraph(graphNodes, (_t, q) => (q.includes('kombucha') ? [{ id: kombucha.id, score: 1 }] : []));
    const startModule = async () => {
      const module = await createSearchModule({
        database,
        bus: createMemoryBus(logger),
        logger,
        vectors: createQdrantVectorIndex({ url, apiKey, timeoutMs: 3000 }),
        embedder,
        graph,
        indexIntervalMs: 20,
      });
      await module.start();
      const search = connectService('gateway', 'search', searchApi, { kind: 'local', router: module.router }).as({
        ...identity,
        tenantId: other,
      });
      const query = (mode: 'semantic' | 'hybrid') =>
        search.nodes.search({ query: 'kombucha fermented tea', mode, page: 1, per_page: 10 });
      return { module, query };
    };
    const found = (query: (mode: 'semantic') => Promise<{ hits: Array<{ id: string }> }>) =>
      vi.waitFor(async () => expect((await query('semantic')).hits.map((h) => h.id)).toEqual([kombucha.id]), {
        timeout: 20_000,
        interval: 50,
      });

    const first = await startModule();
    await found(first.query);
    await rest('DELETE', `/collections/${collection}`);
    await expect(first.query('semantic')).rejects.toMatchObject({ data: { httpStatus: 503 } });
    expect(await first.query('hybrid')).toMatchObject({ hits: [{ id: kombucha.id }], fallback: 'keyword' });
    const loud = lines.filter((l) => l.level >= 40);
    expect(loud).toHaveLength(1);
    expect(String(loud[0]!['diagnostic'])).toContain(
      `Collection \`${collection}\` doesn't exist! (deleted while search runs: restart search, which makes it anew and embeds every node again)`,
    );
    await first.module.stop();

    const second = await startModule();
    await found(second.query);
    expect(lines.filter((l) => l.level >= 40 && l.msg.includes('made anew'))).toMatchObject([{ collection, nodes: 1 }]);
    await second.module.stop();
  }, 90_000);

  it.each([
    [
      'size',
      { size: 3, distance: 'Cosine' },
      /vector size 3 \(3 dimensions, Cosine\); expected 256 dimensions, Cosine/,
    ],
    [
      'distance',
      { size: 256, distance: 'Dot' },
      /vector distance Dot \(256 dimensions, Dot\); expected 256 dimensions, Cosine/,
    ],
  ])(
    'a collection with another vector %s: the start stops with one line naming the collection and the setting, the collection untouched',
    async (setting, vectors, wording) => {
      const embedder = testEmbedder(`test-bow-256-${setting}`);
      const collection = nodesCollection(embedder.model, embedder.dimensions);
      await rest('PUT', `/collections/${collection}`, { vectors });
      const { logger, lines } = captured();
      const err = await createSearchModule({
        database,
        bus: createMemoryBus(logger),
        logger,
        vectors: createQdrantVectorIndex({ url, apiKey, timeoutMs: 3000 }),
        embedder,
        graph: fakeGraph(new Map()),
      }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(SearchStartError);
      expect((err as SearchStartError).mismatch).toMatchObject({ collection, setting });
      const message = (err as Error).message;
      expect(message).toMatch(wording);
      expect(message).toContain(collection);
      expect(message).toMatch(/EMBEDDINGS_MODEL and QDRANT_URL/);
      expect(message).not.toContain('\n');
      expect(lines.filter((l) => l.level >= 40)).toEqual([]); // main.ts prints the one line (failFast)
      const info = await rest('GET', `/collections/${collection}`);
      expect(info['payload_schema']).toEqual({}); // no index added to a refused collection
      expect(info['points_count']).toBe(0);
    },
    60_000,
  );
});
