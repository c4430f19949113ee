/**
 * Qdrant's side of a search, alone: the search service's query (tenant and model filter, cosine,
 * score threshold 0.25, payload for `_id`) sent straight to Qdrant's REST API at several settings,
 * on the same synthetic tenant as bench:search-speed (bench/search/corpus.ts) in a collection
 * laid out as packages/vectors makes it (per-tenant HNSW, `m: 0`, `payload_m: 16`, payload on
 * disk). For each setting: p50/p95 one query after another and with 16 concurrent queries, and
 * recall against exact search (`exact: true`) of the same request. It says where the time of
 * mode=semantic and of hybrid's semantic leg goes, and what a change to the adapter would buy.
 *
 * It starts a Qdrant of its own (the binary of scripts/infra/qdrant.sh, ../shared/bin/qdrant or
 * QDRANT_BIN) on ports 56433/56434 with storage in a temporary folder, and stops it at the end.
 * Usage: scripts/node24.sh tsx bench/search/qdrant-params.ts [--nodes=100000 --queries=60]
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, openSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createEmbedder } from '@kg/embeddings';
import { createQdrantVectorIndex } from '@kg/vectors';
import { nodesCollection } from '../../services/search/src/indexing/indexer';
import { SEMANTIC_FLOOR } from '../../services/search/src/ranking/search';
import { fmt, summarize } from '../graph/stats';
import { generateNodes, loadTopics } from './corpus';
import { loadVectors } from './load';
import { ROOT } from './servers';

const arg = (name: string, fallback: string) =>
  process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback;
const NODES = Number(arg('nodes', '100000'));
const QUERIES = Number(arg('queries', '60'));
const PORT = 56433;
const url = `http://127.0.0.1:${PORT}`;
const log = (s: string) => console.log(s);

const storage = mkdtempSync(path.join(tmpdir(), 'kg-qdrant-params-'));
const bin = process.env['QDRANT_BIN'] ?? path.join(ROOT, '..', 'shared', 'bin', 'qdrant');
const out = openSync(path.join(storage, 'qdrant.log'), 'a');
const qdrant = spawn(bin, [], {
  cwd: storage,
  stdio: ['ignore', out, out],
  env: {
    PATH: process.env['PATH'] ?? '',
    QDRANT__SERVICE__HOST: '127.0.0.1',
    QDRANT__SERVICE__HTTP_PORT: String(PORT),
    QDRANT__SERVICE__GRPC_PORT: String(PORT + 1),
    QDRANT__SERVICE__ENABLE_STATIC_CONTENT: 'false',
    QDRANT__STORAGE__STORAGE_PATH: path.join(storage, 'storage'),
    QDRANT__STORAGE__SNAPSHOTS_PATH: path.join(storage, 'snapshots'),
    QDRANT__TELEMETRY_DISABLED: 'true',
    QDRANT__LOG_LEVEL: 'WARN',
  },
});

/**
 * One POST; `keepAlive: false` asks for a new connection per request (`connection: close`).
 * Qdrant's HTTP server (actix-web) leaves Nagle's algorithm on: on a kept-alive connection a
 * response written in two parts waits for the client's delayed ACK (40 ms on Linux) about
 * every other request, which would hide the differences between the settings below.
 */
async function post(route: string, body: unknown, keepAlive = false) {
  const res = await fetch(`${url}${route}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(keepAlive ? {} : { connection: 'close' }) },
    body: JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`POST ${route}: ${res.status} ${await res.text()}`);
  return (await res.json()) as { result: { points: Array<{ id: string }> } };
}

try {
  for (let i = 0; ; i++) {
    if (qdrant.exitCode !== null) throw new Error(`qdrant exited with ${qdrant.exitCode}`);
    if (
      await fetch(`${url}/readyz`).then(
        (r) => r.ok,
        () => false,
      )
    )
      break;
    if (i > 300) throw new Error('qdrant did not become ready');
    await new Promise((r) => setTimeout(r, 200));
  }
  const embedder = await createEmbedder({ EMBEDDINGS_PROVIDER: 'local' });
  const topics = await loadTopics(embedder);
  const queries: number[][] = [];
  for (let i = 0; i < QUERIES; i++) {
    const [v] = await embedder.embed([topics[(i * 7) % topics.length]!.query], 'query');
    queries.push(Array.from(v!));
  }
  const model = embedder.model;
  const collection = nodesCollection(model, embedder.dimensions);
  await embedder.close();
  const tenant = 'tnt_bench';
  const index = createQdrantVectorIndex({ url, timeoutMs: 120_000 });
  await loadVectors([index], tenant, generateNodes(topics, NODES), topics, model, log);
  // A second, small tenant, as a shared collection has: its points are never returned.
  await loadVectors([index], 'tnt_other', generateNodes(topics, 2000, 3), topics, model, log);
  for (;;) {
    const info = (await (await fetch(`${url}/collections/${collection}`)).json()) as {
      result: { status: string; indexed_vectors_count: number; segments_count: number };
    };
    if (info.result.status === 'green') {
      log(
        `collection green: ${info.result.indexed_vectors_count} indexed vectors, ${info.result.segments_count} segments`,
      );
      break;
    }
    await new Promise((r) => setTimeout(r, 1000));
  }

  const filter = (withModel: boolean) => ({
    must: [
      { key: 'tenant_id', match: { value: tenant } },
      ...(withModel ? [{ key: 'model', match: { value: model } }] : []),
    ],
  });
  interface Setting {
    name: string;
    limit: number;
    payload: boolean | string[];
    params?: Record<string, unknown>;
    model?: boolean;
    /** Requests on kept-alive connections (as the adapter's client sends them today). */
    keepAlive?: boolean;
  }
  const request = (s: Setting, vector: number[], exact = false) => ({
    query: vector,
    filter: filter(s.model ?? true),
    limit: s.limit,
    score_threshold: SEMANTIC_FLOOR,
    with_payload: s.payload,
    with_vector: false,
    params: { ...s.params, ...(exact ? { exact: true } : {}) },
  });
  const settings: Setting[] = [
    { name: 'semantic today: limit 200, whole payload, kept-alive', limit: 200, payload: true, keepAlive: true },
    { name: 'hybrid leg today: limit 100, whole payload, kept-alive', limit: 100, payload: true, keepAlive: true },
    { name: 'limit 200, whole payload, new connection', limit: 200, payload: true },
    { name: 'limit 100, whole payload, new connection', limit: 100, payload: true },
    { name: 'limit 100, payload `_id` only', limit: 100, payload: ['_id'] },
    { name: 'limit 100, no payload', limit: 100, payload: false },
    { name: 'limit 100, `_id` only, tenant filter only', limit: 100, payload: ['_id'], model: false },
    { name: 'limit 100, `_id` only, hnsw_ef 128', limit: 100, payload: ['_id'], params: { hnsw_ef: 128 } },
    { name: 'limit 100, `_id` only, hnsw_ef 256', limit: 100, payload: ['_id'], params: { hnsw_ef: 256 } },
    { name: 'limit 100, `_id` only, hnsw_ef 512', limit: 100, payload: ['_id'], params: { hnsw_ef: 512 } },
    { name: 'limit 100, `_id` only, exact', limit: 100, payload: ['_id'], params: { exact: true } },
    { name: 'limit 200, `_id` only', limit: 200, payload: ['_id'] },
    { name: 'limit 200, `_id` only, hnsw_ef 400', limit: 200, payload: ['_id'], params: { hnsw_ef: 400 } },
  ];
  const ids = async (body: unknown, keepAlive?: boolean) =>
    (await post(`/collections/${collection}/points/query`, body, keepAlive)).result.points.map((p) => p.id);
  log(`\n${NODES.toLocaleString()} points of one tenant, ${QUERIES} queries, Qdrant alone (ms, REST, client side)\n`);
  log('| setting | 1 client p50 | p95 | 16 clients p50 | p95 | recall vs exact |');
  log('|---|---|---|---|---|---|');
  for (const s of settings) {
    for (const v of queries.slice(0, 5)) await ids(request(s, v), s.keepAlive); // warm-up
    const one: number[] = [];
    let recall = 0;
    for (const v of queries) {
      const t = performance.now();
      const got = await ids(request(s, v), s.keepAlive);
      one.push(performance.now() - t);
      const exact = new Set(await ids(request(s, v, true)));
      recall += exact.size === 0 ? 1 : got.filter((id) => exact.has(id)).length / exact.size;
    }
    const many: number[] = [];
    let next = 0;
    const work = [...queries, ...queries, ...queries, ...queries];
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        while (next < work.length) {
          const v = work[next++]!;
          const t = performance.now();
          await ids(request(s, v), s.keepAlive);
          many.push(performance.now() - t);
        }
      }),
    );
    const [a, b] = [summarize(one), summarize(many)];
    log(
      `| ${s.name} | ${fmt(a.p50)} | ${fmt(a.p95)} | ${fmt(b.p50)} | ${fmt(b.p95)} | ${((100 * recall) / queries.length).toFixed(1)} % |`,
    );
  }
} finally {
  if (qdrant.exitCode === null) {
    const exited = new Promise((r) => qdrant.once('exit', r));
    qdrant.kill('SIGTERM');
    await exited;
  }
  rmSync(storage, { recursive: true, force: true });
}
