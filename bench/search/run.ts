/**
 * npm run bench:search — known-item quality of GET /nodes in keyword, semantic and hybrid mode
 * on real third-party text (Python standard-library docstrings: first line as the query, the
 * rest as the node; bench/search/dataset.py), next to a plain BM25 reference (SQLite FTS5,
 * bench/search/bm25.py) and the raw embedding model scored exhaustively outside the service.
 *
 * The hybrid weight is chosen on the tuning split: each tuning query's two candidate lists are
 * taken through the search service's own ranker (ranking/search.ts `hybridSides`, the keyword
 * side through graph's BM25 statement) over the same database and index the server built, and
 * fused by the service's `fuse` at every weight of 0.30–0.90 (step 0.05); the best R@10 (then
 * MRR@10) wins. The server is then restarted with HYBRID_SEMANTIC_WEIGHT set to it and every
 * mode is reported on the reported split only, through HTTP.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { decodeJwt } from 'jose';
import { createEmbedder } from '@kg/embeddings';
import { openDatabase } from '@kg/db';
import { createMemoryVectorIndex } from '@kg/vectors';
import { commonLexemes, corpusStats, keywordSearch } from '../../services/graph/src/store/keyword';
import { createRanker } from '../../services/search/src/ranking/search';
import { directEmbedder } from '../../services/search/src/tenant-embedder';
import { fuse, SEMANTIC_WEIGHT, type Scored } from '../../services/search/src/ranking/fusion';
import { NO_REQUEST_LIMITS, signIn, startEmbeddedAt } from './servers';

interface Item {
  id: string;
  title: string;
  content: string;
  query: string;
  split: 'tuning' | 'reported';
}
type Scores = { 'R@1': number; 'R@10': number; 'MRR@10': number };

const here = new URL('.', import.meta.url).pathname;
const size = Number(process.env.BENCH_ITEMS ?? 600);
const raw = execFileSync('python3', [`${here}dataset.py`, String(size)], { encoding: 'utf8' });
const items = raw
  .trim()
  .split('\n')
  .map((l) => JSON.parse(l) as Item);
const reported = items.filter((i) => i.split === 'reported');
const tuning = items.filter((i) => i.split === 'tuning');

function score(ranked: string[][], expected: string[]): Scores {
  let r1 = 0;
  let r10 = 0;
  let mrr = 0;
  ranked.forEach((ids, q) => {
    const rank = ids.slice(0, 10).indexOf(expected[q]!) + 1;
    if (rank > 0) {
      r10 += 1;
      mrr += 1 / rank;
      if (rank === 1) r1 += 1;
    }
  });
  const n = expected.length;
  return { 'R@1': r1 / n, 'R@10': r10 / n, 'MRR@10': mrr / n };
}

const bm25 = JSON.parse(execFileSync('python3', [`${here}bm25.py`], { input: raw, encoding: 'utf8' })) as Scores;

// The raw model, exhaustively: the same text the service embeds for a short node, truncated by the model.
const embedder = await createEmbedder({ EMBEDDINGS_PROVIDER: 'local' });
const t0 = performance.now();
const docs: Float32Array[] = [];
for (const i of items) docs.push(...(await embedder.embed([`${i.title}. ${i.content}`], 'passage')));
const embedSeconds = (performance.now() - t0) / 1000;
const dot = (a: Float32Array, b: Float32Array) => a.reduce((s, x, k) => s + x * b[k]!, 0);
const rawRanked: string[][] = [];
for (const q of reported) {
  const [v] = await embedder.embed([q.query], 'query');
  rawRanked.push(
    items
      .map((d, k) => ({ id: d.id, s: dot(v!, docs[k]!) }))
      .sort((a, b) => b.s - a.s)
      .slice(0, 10)
      .map((h) => h.id),
  );
}
await embedder.close();
const rawModel = score(
  rawRanked,
  reported.map((r) => r.id),
);

// The service, as a user reaches it: embedded mode, nodes through POST /nodes.
const dataDir = mkdtempSync(path.join(tmpdir(), 'kg-bench-search-'));
const email = `bench-search-${Date.now()}@example.com`;
let target = await startEmbeddedAt(dataDir, NO_REQUEST_LIMITS);
const nodeOf = new Map<string, string>();
let tenantId = '';
let catchUp = 0;
try {
  const auth = await signIn(target, email);
  tenantId = String(decodeJwt(auth.slice('Bearer '.length))['tnt']);
  const api = `${target.baseUrl}/api/v1`;
  const headers = { authorization: auth, 'content-type': 'application/json' };
  for (const i of items) {
    const res = await fetch(`${api}/nodes`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ title: i.title, content: i.content }),
    });
    nodeOf.set(i.id, ((await res.json()) as { id: string }).id);
  }
  const written = performance.now();
  // Indexing is FIFO: once the last node is searchable by its own text, every node is.
  const last = items.at(-1)!;
  for (;;) {
    const res = await fetch(
      `${api}/nodes?mode=semantic&per_page=100&query=${encodeURIComponent(`${last.title}. ${last.content}`.slice(0, 500))}`,
      { headers },
    );
    const page = (await res.json()) as { data: Array<{ id: string }> };
    if (page.data.some((n) => n.id === nodeOf.get(last.id))) break;
    await new Promise((r) => setTimeout(r, 250));
  }
  catchUp = (performance.now() - written) / 1000;
} finally {
  await target.stop();
}

// Tuning split: the service's ranker over the database and index the server built.
const weights = Array.from({ length: 13 }, (_, k) => Math.round((0.3 + 0.05 * k) * 100) / 100);
const sweep = new Map<number, Scores>();
{
  const database = await openDatabase({ dataDir });
  const vectors = createMemoryVectorIndex({ dir: path.join(dataDir, 'vectors') });
  const queryEmbedder = await createEmbedder({ EMBEDDINGS_PROVIDER: 'local' });
  const corpus = await corpusStats(database.db, tenantId, await commonLexemes(database.db));
  const ranker = createRanker({
    vectors,
    embedder: directEmbedder(queryEmbedder),
    keyword: async (tenant, query, _filters, limit) =>
      (await keywordSearch(database.db, tenant, query, {}, limit, 0, corpus)).hits,
  });
  await vectors.ensureCollection(`kg_nodes_d${queryEmbedder.dimensions}`, queryEmbedder.dimensions);
  const sides: Array<{ keyword: Scored[]; semantic: Scored[] }> = [];
  for (const q of tuning) sides.push(await ranker.hybridSides(tenantId, q.query, {}));
  for (const w of weights)
    sweep.set(
      w,
      score(
        sides.map((s) => fuse(s.keyword, s.semantic, w).map((h) => h.id)),
        tuning.map((t) => nodeOf.get(t.id)!),
      ),
    );
  await queryEmbedder.close();
  await database.close();
}
const [chosen] = [...sweep.entries()].sort(
  ([wa, a], [wb, b]) =>
    b['R@10'] - a['R@10'] ||
    b['MRR@10'] - a['MRR@10'] ||
    Math.abs(wa - SEMANTIC_WEIGHT) - Math.abs(wb - SEMANTIC_WEIGHT),
)[0]!;

// Reported split, through HTTP, with the chosen weight.
target = await startEmbeddedAt(dataDir, { ...NO_REQUEST_LIMITS, HYBRID_SEMANTIC_WEIGHT: String(chosen) });
try {
  const auth = await signIn(target, email);
  const api = `${target.baseUrl}/api/v1`;
  const headers = { authorization: auth };
  const results: Record<string, Scores> = {};
  const latency: Record<string, number[]> = {};
  for (const mode of ['keyword', 'semantic', 'hybrid']) {
    const ranked: string[][] = [];
    latency[mode] = [];
    for (const q of reported) {
      const a = performance.now();
      const res = await fetch(`${api}/nodes?mode=${mode}&per_page=10&query=${encodeURIComponent(q.query)}`, {
        headers,
      });
      latency[mode].push(performance.now() - a);
      ranked.push(((await res.json()) as { data: Array<{ id: string }> }).data.map((n) => n.id));
    }
    results[mode] = score(
      ranked,
      reported.map((r) => nodeOf.get(r.id)!),
    );
  }
  const f = (x: number) => x.toFixed(3);
  const p = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.floor(q * (xs.length - 1))]!.toFixed(1);
  console.log(`\nHybrid weight sweep on the tuning split (${tuning.length} queries; service ranker and fuse):\n`);
  console.log('| semantic weight | R@1 | R@10 | MRR@10 |');
  console.log('|---|---|---|---|');
  for (const [w, s] of sweep)
    console.log(
      `| ${w.toFixed(2)}${w === chosen ? ' (chosen)' : ''} | ${f(s['R@1'])} | ${f(s['R@10'])} | ${f(s['MRR@10'])} |`,
    );
  console.log(
    `\nKnown-item set: ${items.length} Python stdlib docstrings, ${reported.length} reported queries, hybrid weight ${chosen}\n`,
  );
  console.log('| method | R@1 | R@10 | MRR@10 | p50 ms | p95 ms |');
  console.log('|---|---|---|---|---|---|');
  for (const [mode, s] of Object.entries(results))
    console.log(
      `| mode=${mode} (HTTP) | ${f(s['R@1'])} | ${f(s['R@10'])} | ${f(s['MRR@10'])} | ${p(latency[mode]!, 0.5)} | ${p(latency[mode]!, 0.95)} |`,
    );
  console.log(
    `| BM25 reference (SQLite FTS5, any word) | ${f(bm25['R@1'])} | ${f(bm25['R@10'])} | ${f(bm25['MRR@10'])} | | |`,
  );
  console.log(
    `| raw model (${embedder.model}, exhaustive) | ${f(rawModel['R@1'])} | ${f(rawModel['R@10'])} | ${f(rawModel['MRR@10'])} | | |`,
  );
  const r10 = (s: Scores) => s['R@10'];
  const kw = results['keyword']!;
  const sem = results['semantic']!;
  const hyb = results['hybrid']!;
  console.log(
    `\nTargets: keyword R@10 / BM25 ${(r10(kw) / r10(bm25)).toFixed(3)} (≥ 0.95); semantic / raw model ${(r10(sem) / r10(rawModel)).toFixed(3)} (≥ 0.97); hybrid ${f(r10(hyb))} vs max(keyword, semantic) ${f(Math.max(r10(kw), r10(sem)))} (≥)`,
  );
  console.log(
    `Raw model embedding: ${(items.length / embedSeconds).toFixed(1)} texts/s; service indexing caught up ${catchUp.toFixed(1)} s after the last write (${items.length} nodes).`,
  );
} finally {
  await target.stop();
}
