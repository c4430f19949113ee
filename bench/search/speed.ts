/**
 * npm run bench:search-speed — search latency at 100,000 nodes through HTTP, embedded or
 * distributed: keyword, semantic and hybrid p50/p95 with one client and with 16 concurrent
 * clients, the freshness lag of new nodes (POST /nodes → found by mode=semantic) on an empty
 * tenant and at 100k, and the resident memory of the process that holds the index (the embedded
 * server; the search service in the distributed mode), idle with the model loaded and at 100k.
 *
 * Nodes are written straight into the services' tables and their vectors (topic centroid plus
 * noise, bench/search/corpus.ts) through the vectors port into the persisted index before the
 * server (or the search process) starts; queries go through the real query embedder.
 *
 * The distributed mode measures both vector indexes in one run (bench/search/vectors.ts): the
 * in-process index, then the real Qdrant of scripts/infra, on the same cluster, tenant, tables
 * and vectors (only the search process restarts, with QDRANT_URL for Qdrant), and prints them
 * side by side: Qdrant / in-process, hybrid p95 / keyword p95 against the target (≤ 2), and how
 * much of the exact top 20 (the in-process index is exhaustive) Qdrant's HNSW returns.
 *
 * Usage: npm run bench:search-speed [-- --mode=embedded|distributed|freshness --nodes=100000 --clients=16
 *   --vectors=both|in-process|qdrant --modes=keyword,semantic,hybrid]
 * (freshness: the probe alone on an empty embedded server at INDEX_INTERVAL_MS 200 and 50)
 * (distributed starts scripts/infra and the seven processes: run it under flock /tmp/kg-distributed.lock)
 */
import { mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { decodeJwt } from 'jose';
import { createEmbedder } from '@kg/embeddings';
import { openDatabase } from '@kg/db';
import { startCluster } from '../../scripts/distributed/cluster';
import { freePort } from '../../test/e2e/support/ports';
import { fmt, type Summary } from '../graph/stats';
import { generateNodes, loadTopics } from './corpus';
import { createMemoryVectorIndex } from '@kg/vectors';
import { nodesCollection } from '../../services/search/src/indexing/indexer';
import { loadTables, loadVectors } from './load';
import { freshness, load, semanticPages, type Api, type Mode } from './drive';
import {
  dropQdrantTenant,
  label,
  openVectors,
  qdrantPid,
  qdrantSettled,
  useVectors,
  vectorsKinds,
  type VectorsKind,
} from './vectors';
import { NO_REQUEST_LIMITS, pidOf, rssMiB, signIn, startEmbeddedAt } from './servers';

const arg = (name: string, fallback: string) =>
  process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback;
const MODE = arg('mode', 'embedded') as 'embedded' | 'distributed' | 'freshness';
const NODES = Number(arg('nodes', '100000'));
const CLIENTS = Number(arg('clients', '16'));
const SEQUENTIAL = Number(arg('sequential', '60'));
const CONCURRENT = Number(arg('concurrent', '240'));
const FRESH = Number(arg('fresh', '50'));
/** The search modes measured (all three unless given). */
const MODES = arg('modes', 'keyword,semantic,hybrid')
  .split(',')
  .filter((m): m is Mode => m === 'keyword' || m === 'semantic' || m === 'hybrid');
const log = (s: string) => console.log(s);
/** A reused data dir's tenant is the one its first sign-in mail went to. */
const firstRecipient = (dir: string) => {
  const mails = readdirSync(path.join(dir, 'outbox'))
    .filter((f) => f.endsWith('.json'))
    .map((f) => ({ f, at: statSync(path.join(dir, 'outbox', f)).mtimeMs }))
    .sort((a, b) => a.at - b.at);
  return (JSON.parse(readFileSync(path.join(dir, 'outbox', mails[0]!.f), 'utf8')) as { to: string }).to;
};
const EMAIL = arg('data-dir', '') ? firstRecipient(arg('data-dir', '')) : `bench-speed-${Date.now()}@example.com`;

const embedder = await createEmbedder({ EMBEDDINGS_PROVIDER: 'local' });
const topics = MODE === 'freshness' ? [] : await loadTopics(embedder);
const reusing = MODE === 'embedded' && arg('data-dir', '') !== '';
const model = embedder.model;
await embedder.close();
const nodes = MODE === 'freshness' || reusing ? [] : generateNodes(topics, NODES);
const queries = (n: number, offset: number) =>
  Array.from({ length: n }, (_, i) => topics[(offset + i * 7) % topics.length]!.query);
log(`${MODE}: ${topics.length} topics, ${NODES.toLocaleString()} nodes, model ${model}`);

interface Target {
  baseUrl: string;
  outboxDir: string;
  /** The process holding the vector index. */
  pid(): number;
}

async function apiOf(target: Target): Promise<Api & { tenantId: string }> {
  const auth = await signIn(target, EMAIL);
  const tenantId = String(decodeJwt(auth.slice('Bearer '.length))['tnt']);
  return { api: `${target.baseUrl}/api/v1`, headers: { authorization: auth }, tenantId };
}

async function measure(a: Api) {
  const rows: Partial<Record<Mode, { one: Summary; many: Awaited<ReturnType<typeof load>> }>> = {};
  for (const mode of MODES) {
    await load(a, mode, queries(10, 500), 2); // warm-up
    const one = await load(a, mode, queries(SEQUENTIAL, 0), 1);
    const many = await load(a, mode, queries(CONCURRENT, 100), CLIENTS);
    rows[mode] = { one, many };
    log(
      `  ${mode}: 1 client p50 ${fmt(one.p50)} p95 ${fmt(one.p95)}; ${CLIENTS} clients p50 ${fmt(many.p50)} p95 ${fmt(many.p95)}`,
    );
  }
  return rows;
}

type Rows = Awaited<ReturnType<typeof measure>>;

function report(rows: Rows, extra: string[], title: string = MODE) {
  log(`\n### ${title}, ${NODES.toLocaleString()} nodes (milliseconds, client side through HTTP)\n`);
  log(`| mode | 1 client p50 | p95 | ${CLIENTS} clients p50 | p95 | req/s | answered |`);
  log('|---|---|---|---|---|---|---|');
  for (const [mode, r] of Object.entries(rows))
    log(
      `| ${mode} | ${fmt(r.one.p50)} | ${fmt(r.one.p95)} | ${fmt(r.many.p50)} | ${fmt(r.many.p95)} | ${r.many.rps.toFixed(1)} | ${(100 * r.many.answered).toFixed(0)} % |`,
    );
  const ratio = (a: Mode, b: Mode, k: 'one' | 'many') => (rows[a]![k].p95 / rows[b]![k].p95).toFixed(2);
  for (const other of ['hybrid', 'semantic'] as const)
    if (rows[other] && rows.keyword)
      log(
        `${other} p95 / keyword p95: ${ratio(other, 'keyword', 'one')} (1 client), ${ratio(other, 'keyword', 'many')} (${CLIENTS} clients)${other === 'hybrid' ? '; target ≤ 2' : ''}`,
      );
  if (rows.keyword)
    log(
      `keyword p95 at ${NODES.toLocaleString()} nodes: ${fmt(rows.keyword.one.p95)} ms with 1 client (target < 50), ${fmt(rows.keyword.many.p95)} ms with ${CLIENTS} (target < 150)`,
    );
  for (const line of extra) log(line);
}

const settle = () => new Promise((r) => setTimeout(r, 3000));

if (MODE === 'freshness') {
  // What bounds freshness: the same probe on an empty embedded server at two indexing intervals.
  for (const interval of ['200', '50']) {
    const server = await startEmbeddedAt(mkdtempSync(path.join(tmpdir(), 'kg-bench-fresh-')), {
      ...NO_REQUEST_LIMITS,
      INDEX_INTERVAL_MS: interval,
    });
    try {
      const a = await apiOf({ ...server, pid: () => server.pid });
      await settle();
      const idle = rssMiB(server.pid);
      const f = await freshness(a, FRESH, `interval-${interval}`);
      log(
        `INDEX_INTERVAL_MS=${interval}: freshness p50 ${fmt(f.p50)} p95 ${fmt(f.p95)} ms (${FRESH} nodes); idle RSS ${idle.toFixed(0)} MiB`,
      );
    } finally {
      await server.stop();
    }
  }
} else if (MODE === 'embedded') {
  // --data-dir=<dir> of an earlier run: its 100k nodes are reused (no empty-tenant figures then).
  const reused = arg('data-dir', '');
  const dataDir = reused || mkdtempSync(path.join(tmpdir(), 'kg-bench-speed-'));
  let idle = Number.NaN;
  let freshEmpty: Pick<Summary, 'p50' | 'p95'> = { p50: Number.NaN, p95: Number.NaN };
  if (!reused) {
    const empty = await startEmbeddedAt(dataDir, NO_REQUEST_LIMITS);
    const first = await apiOf({ ...empty, pid: () => empty.pid });
    await settle();
    idle = rssMiB(empty.pid);
    freshEmpty = await freshness(first, FRESH, 'empty');
    await empty.stop();
    const tenantId = first.tenantId;
    log(`loading tables and vectors into ${dataDir}…`);
    const database = await openDatabase({ dataDir });
    await loadTables(database.db, tenantId, nodes, model, log);
    await database.close();
    await loadVectors(
      [createMemoryVectorIndex({ dir: path.join(dataDir, 'vectors') })],
      tenantId,
      nodes,
      topics,
      model,
      log,
    );
  }
  const t0 = performance.now();
  const server = await startEmbeddedAt(dataDir, NO_REQUEST_LIMITS);
  const startSeconds = (performance.now() - t0) / 1000;
  const a = await apiOf({ ...server, pid: () => server.pid });
  await settle();
  const loaded = rssMiB(server.pid);
  let rows: Awaited<ReturnType<typeof measure>>;
  let peak: number;
  let fresh: Summary;
  try {
    rows = await measure(a);
    peak = rssMiB(server.pid);
    fresh = await freshness(a, FRESH, 'loaded');
  } finally {
    await server.stop();
  }
  report(rows, [
    `freshness (POST /nodes 201 → found by mode=semantic, ${FRESH} nodes one after another): empty tenant p50 ${fmt(freshEmpty.p50)} p95 ${fmt(freshEmpty.p95)}; at ${NODES.toLocaleString()} p50 ${fmt(fresh.p50)} p95 ${fmt(fresh.p95)}`,
    `RSS of the embedded server (model loaded): idle ${idle.toFixed(0)} MiB; at ${NODES.toLocaleString()} nodes ${loaded.toFixed(0)} MiB after start, ${peak.toFixed(0)} MiB after the query runs`,
    `restart with ${NODES.toLocaleString()} nodes (PGlite open, index log replayed, model loaded): ${startSeconds.toFixed(1)} s`,
  ]);
} else {
  // Both vector indexes (--vectors=both) on one cluster and one tenant: the same tables and
  // the same vectors; only the search process is restarted with or without QDRANT_URL.
  const kinds = vectorsKinds(arg('vectors', 'both'));
  const dataDir = mkdtempSync(path.join(tmpdir(), 'kg-bench-speed-dist-'));
  const gatewayPort = await freePort();
  const basePort = 18700;
  const cluster = await startCluster({
    dataDir,
    gatewayPort,
    basePort,
    manageInfra: true,
    freshDatabase: true,
    vectors: kinds[0]!,
    extraEnv: NO_REQUEST_LIMITS,
  });
  const collection = nodesCollection(model, topics[0]!.centroid.length);
  let tenantId = '';
  try {
    const searchSpec = cluster.specs.find((s) => s.name === 'search')!;
    const searchPid = () => pidOf('services/search/src/main.ts', searchSpec.port);
    const target = { baseUrl: cluster.gatewayUrl, outboxDir: cluster.outboxDir, pid: searchPid };
    /** Resident memory of what holds the index: the search process, and Qdrant's server. */
    const memory = (kind: VectorsKind) => ({
      search: rssMiB(searchPid()),
      qdrant: kind === 'qdrant' ? rssMiB(qdrantPid()) : 0,
    });
    const empty = new Map<VectorsKind, { idle: ReturnType<typeof memory>; fresh: Summary }>();
    let a: Awaited<ReturnType<typeof apiOf>> | undefined;
    for (const [k, kind] of kinds.entries()) {
      if (k > 0) {
        await useVectors(cluster, kind);
        await cluster.start('search');
      }
      a ??= await apiOf(target);
      await settle();
      empty.set(kind, { idle: memory(kind), fresh: await freshness(a, FRESH, `empty-${kind}`) });
    }
    tenantId = a!.tenantId;
    await cluster.stop('search');
    log('loading tables and vectors…');
    const database = await openDatabase({ url: searchSpec.env['DATABASE_URL']!, poolSize: 2 });
    await loadTables(database.db, tenantId, nodes, model, log);
    await database.close();
    await loadVectors(
      kinds.map((k) => openVectors(cluster, k)),
      tenantId,
      nodes,
      topics,
      model,
      log,
    );
    const settledSeconds = kinds.includes('qdrant') ? await qdrantSettled(collection, log) : 0;
    const runs = new Map<VectorsKind, { rows: Rows; pages: string[][] }>();
    for (const kind of kinds) {
      log(`search on the ${label(kind)} index:`);
      await useVectors(cluster, kind);
      const t0 = performance.now();
      await cluster.start('search');
      const startSeconds = (performance.now() - t0) / 1000;
      a = await apiOf(target);
      await settle();
      const loaded = memory(kind);
      const rows = await measure(a);
      const pages = await semanticPages(a, queries(SEQUENTIAL, 0));
      const peak = memory(kind);
      const fresh = await freshness(a, FRESH, `loaded-${kind}`);
      const { idle, fresh: freshEmpty } = empty.get(kind)!;
      runs.set(kind, { rows, pages });
      const mem = (m: ReturnType<typeof memory>) =>
        kind === 'qdrant' ? `${m.search.toFixed(0)} + Qdrant ${m.qdrant.toFixed(0)} MiB` : `${m.search.toFixed(0)} MiB`;
      report(
        rows,
        [
          `freshness (POST /nodes 201 → found by mode=semantic, ${FRESH} nodes one after another): empty tenant p50 ${fmt(freshEmpty.p50)} p95 ${fmt(freshEmpty.p95)}; at ${NODES.toLocaleString()} p50 ${fmt(fresh.p50)} p95 ${fmt(fresh.p95)}`,
          `RSS of the search process (model loaded)${kind === 'qdrant' ? ' + the Qdrant server' : ''}: idle ${mem(idle)}; at ${NODES.toLocaleString()} nodes ${mem(loaded)} after start, ${mem(peak)} after the query runs`,
          kind === 'qdrant'
            ? `search process restart on Qdrant with ${NODES.toLocaleString()} vectors (model loaded, collection checked): ${startSeconds.toFixed(1)} s; Qdrant's optimizers settled ${settledSeconds.toFixed(1)} s after the bulk load`
            : `search process restart with ${NODES.toLocaleString()} vectors (index log replayed, model loaded): ${startSeconds.toFixed(1)} s`,
        ],
        `distributed, ${label(kind)} vector index`,
      );
    }
    if (runs.size === 2) compare(runs.get('in-process')!, runs.get('qdrant')!);
  } finally {
    if (tenantId && kinds.includes('qdrant')) await dropQdrantTenant(collection, tenantId, log);
    await cluster.stopAll();
  }
}

/** Qdrant beside the in-process index: latency ratios, the targets, and Qdrant's recall against exact search. */
function compare(memory: { rows: Rows; pages: string[][] }, qdrant: { rows: Rows; pages: string[][] }) {
  const ks = ['one', 'many'] as const;
  const clients = (k: (typeof ks)[number]) => (k === 'one' ? '1 client' : `${CLIENTS} clients`);
  log(`\n### distributed, ${NODES.toLocaleString()} nodes: Qdrant beside the in-process index (ms, client side)\n`);
  log(
    `| mode | in-process 1 client p50 | p95 | ${CLIENTS} clients p50 | p95 | Qdrant 1 client p50 | p95 | ${CLIENTS} clients p50 | p95 | Qdrant / in-process p95 (1 / ${CLIENTS}) |`,
  );
  log('|---|---|---|---|---|---|---|---|---|---|');
  for (const m of MODES) {
    const [r, q] = [memory.rows[m]!, qdrant.rows[m]!];
    log(
      `| ${m} | ${fmt(r.one.p50)} | ${fmt(r.one.p95)} | ${fmt(r.many.p50)} | ${fmt(r.many.p95)} | ${fmt(q.one.p50)} | ${fmt(q.one.p95)} | ${fmt(q.many.p50)} | ${fmt(q.many.p95)} | ${(q.one.p95 / r.one.p95).toFixed(2)} / ${(q.many.p95 / r.many.p95).toFixed(2)} |`,
    );
  }
  if (!memory.rows.hybrid || !memory.rows.keyword || !qdrant.rows.hybrid || !qdrant.rows.keyword) return;
  const hk = (rows: Rows, k: (typeof ks)[number]) => rows.hybrid![k].p95 / rows.keyword![k].p95;
  log(
    `| **hybrid p95 / keyword p95** | | **${hk(memory.rows, 'one').toFixed(2)}** | | **${hk(memory.rows, 'many').toFixed(2)}** | | **${hk(qdrant.rows, 'one').toFixed(2)}** | | **${hk(qdrant.rows, 'many').toFixed(2)}** | |`,
  );
  log('');
  for (const k of ks) {
    const ratio = hk(qdrant.rows, k);
    log(
      `Target hybrid p95 ≤ 2 × keyword p95 on Qdrant, ${clients(k)}: ${ratio.toFixed(2)} — ${ratio <= 2 ? 'met' : 'MISSED'}`,
    );
  }
  // The in-process index is exhaustive: its pages are the exact top 20 of the same vectors.
  const overlap =
    qdrant.pages.reduce((sum, page, q) => {
      const exact = new Set(memory.pages[q]);
      return sum + (exact.size === 0 ? 1 : page.filter((id) => exact.has(id)).length / exact.size);
    }, 0) / Math.max(1, qdrant.pages.length);
  log(
    `Qdrant's semantic page of 20 against the in-process index's exact one (${qdrant.pages.length} queries): ${(100 * overlap).toFixed(1)} % of the exact hits`,
  );
}
