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
 *
 * --mode=distributed runs the seven services on PostgreSQL and Kafka (scripts/infra; under
 * flock /tmp/kg-distributed.lock) and measures both vector indexes in one run (--vectors=both,
 * the default; bench/search/vectors.ts): the items are written once and indexed by the search
 * service into the in-process index; the weight is chosen there; then the tenant's documents
 * are marked for re-indexing and the search process, restarted on the real Qdrant, embeds them
 * all again into it; every mode is reported on both with the same weight, and the target
 * (Qdrant's R@10 within 0.005 of the in-process index's, semantic and hybrid) is checked.
 *
 * Usage: npm run bench:search [-- --mode=embedded|distributed --vectors=both|in-process|qdrant]
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { createEmbedder } from '@kg/embeddings';
import { openDatabase } from '@kg/db';
import { createMemoryVectorIndex } from '@kg/vectors';
import { startCluster } from '../../scripts/distributed/cluster';
import { freePort } from '../../test/e2e/support/ports';
import { nodesCollection } from '../../services/search/src/indexing/indexer';
import { NO_REQUEST_LIMITS, startEmbeddedAt } from './servers';
import {
  choose,
  measureHttp,
  score,
  sweep,
  waitIndexed,
  writeItems,
  MODES,
  WEIGHTS,
  type HttpRun,
  type Item,
  type Scores,
} from './quality';
import { dropQdrantTenant, label, openVectors, useVectors, vectorsKinds, type VectorsKind } from './vectors';

const arg = (name: string, fallback: string) =>
  process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback;
const MODE = arg('mode', 'embedded') as 'embedded' | 'distributed';
if (MODE !== 'embedded' && MODE !== 'distributed') throw new Error('--mode must be embedded or distributed');
const here = new URL('.', import.meta.url).pathname;
const size = Number(process.env.BENCH_ITEMS ?? 600);
const raw = execFileSync('python3', [`${here}dataset.py`, String(size)], { encoding: 'utf8' });
const items = raw
  .trim()
  .split('\n')
  .map((l) => JSON.parse(l) as Item);
const reported = items.filter((i) => i.split === 'reported');
const tuning = items.filter((i) => i.split === 'tuning');
const last = items.at(-1)!;
const email = `bench-search-${Date.now()}@example.com`;

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

/** One vector index's figures: its weight sweep, the reported split through HTTP, how long indexing took. */
interface IndexRun {
  name: string;
  sweep: Map<number, Scores>;
  http: HttpRun;
  /** Seconds from the last write (or the re-index start) until the last item was searchable. */
  catchUp: number;
}
const runs: IndexRun[] = [];
let chosen = 0;

if (MODE === 'embedded') {
  // The service, as a user reaches it: embedded mode, nodes through POST /nodes.
  const dataDir = mkdtempSync(path.join(tmpdir(), 'kg-bench-search-'));
  let target = await startEmbeddedAt(dataDir, NO_REQUEST_LIMITS);
  let written: Awaited<ReturnType<typeof writeItems>>;
  let catchUp: number;
  try {
    written = await writeItems(target, email, items);
    catchUp = await waitIndexed(target, written.auth, last, written.nodeOf.get(last.id)!);
  } finally {
    await target.stop();
  }
  // Tuning split: the service's ranker over the database and index the server built.
  const database = await openDatabase({ dataDir });
  const swept = await sweep(
    database.db,
    createMemoryVectorIndex({ dir: path.join(dataDir, 'vectors') }),
    written.tenantId,
    tuning,
    written.nodeOf,
  );
  await database.close();
  chosen = choose(swept);
  // Reported split, through HTTP, with the chosen weight.
  target = await startEmbeddedAt(dataDir, { ...NO_REQUEST_LIMITS, HYBRID_SEMANTIC_WEIGHT: String(chosen) });
  try {
    runs.push({
      name: 'embedded',
      sweep: swept,
      http: await measureHttp(target, email, reported, written.nodeOf),
      catchUp,
    });
  } finally {
    await target.stop();
  }
} else {
  const kinds = vectorsKinds(arg('vectors', 'both'));
  const dataDir = mkdtempSync(path.join(tmpdir(), 'kg-bench-search-dist-'));
  const cluster = await startCluster({
    dataDir,
    gatewayPort: await freePort(),
    basePort: 18700,
    manageInfra: true,
    freshDatabase: true,
    vectors: kinds[0]!,
    extraEnv: NO_REQUEST_LIMITS,
  });
  const target = { baseUrl: cluster.gatewayUrl, outboxDir: cluster.outboxDir };
  const databaseUrl = cluster.specs.find((s) => s.name === 'search')!.env['DATABASE_URL']!;
  const database = await openDatabase({ url: databaseUrl, poolSize: 2 });
  let tenantId = '';
  let collection = '';
  try {
    const written = await writeItems(target, email, items);
    tenantId = written.tenantId;
    let catchUp = await waitIndexed(target, written.auth, last, written.nodeOf.get(last.id)!);
    for (const [k, kind] of kinds.entries()) {
      if (k > 0) {
        // A full re-index of the tenant into this index: every document pending again.
        await useVectors(cluster, kind);
        await database.db.execute(
          sql`update search.documents set embedded_version = null, embedded_model = null where tenant_id = ${tenantId}`,
        );
        await cluster.start('search');
        catchUp = await waitIndexed(target, written.auth, last, written.nodeOf.get(last.id)!);
      }
      await cluster.stop('search');
      const vectors = openVectors(cluster, kind);
      const swept = await sweep(database.db, vectors, tenantId, tuning, written.nodeOf);
      if (k === 0) chosen = choose(swept);
      if (kind === 'qdrant') {
        collection = nodesCollection(embedder.model, embedder.dimensions);
        const count = await vectors.count(collection, { tenant_id: tenantId });
        console.log(`Qdrant holds ${count} vectors of the tenant's ${items.length} nodes`);
      }
      // The same weight on every index, so that the reported figures differ by the index alone.
      await useVectors(cluster, kind, { HYBRID_SEMANTIC_WEIGHT: String(chosen) });
      await cluster.start('search');
      runs.push({
        name: `distributed, ${label(kind)}`,
        sweep: swept,
        http: await measureHttp(target, email, reported, written.nodeOf),
        catchUp,
      });
    }
  } finally {
    await database.close();
    if (collection) await dropQdrantTenant(collection, tenantId, console.log);
    await cluster.stopAll();
  }
}

const f = (x: number) => x.toFixed(3);
const p = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.floor(q * (xs.length - 1))]!.toFixed(1);
// One sweep table, a column group per index (the weight is chosen on the first).
console.log(`\nHybrid weight sweep on the tuning split (${tuning.length} queries; service ranker and fuse):\n`);
console.log(`| semantic weight | ${runs.map((r) => `R@1 (${r.name}) | R@10 | MRR@10`).join(' | ')} |`);
console.log(`|---|${runs.map(() => '---|---|---|').join('')}`);
for (const w of WEIGHTS)
  console.log(
    `| ${w.toFixed(2)}${w === chosen ? ' (chosen)' : ''} | ${runs
      .map((r) => r.sweep.get(w)!)
      .map((s) => `${f(s['R@1'])} | ${f(s['R@10'])} | ${f(s['MRR@10'])}`)
      .join(' | ')} |`,
  );
for (const run of runs) {
  const best = choose(run.sweep);
  if (best !== chosen) console.log(`(on the ${run.name} index alone the sweep would choose ${best})`);
}
console.log(
  `\nKnown-item set: ${items.length} Python stdlib docstrings, ${reported.length} reported queries, hybrid weight ${chosen}\n`,
);
console.log('| method | R@1 | R@10 | MRR@10 | p50 ms | p95 ms |');
console.log('|---|---|---|---|---|---|');
for (const run of runs)
  for (const mode of MODES) {
    const { scores: s, latency } = run.http[mode];
    console.log(
      `| mode=${mode} (HTTP, ${run.name}) | ${f(s['R@1'])} | ${f(s['R@10'])} | ${f(s['MRR@10'])} | ${p(latency, 0.5)} | ${p(latency, 0.95)} |`,
    );
  }
console.log(
  `| BM25 reference (SQLite FTS5, any word) | ${f(bm25['R@1'])} | ${f(bm25['R@10'])} | ${f(bm25['MRR@10'])} | | |`,
);
console.log(
  `| raw model (${embedder.model}, exhaustive) | ${f(rawModel['R@1'])} | ${f(rawModel['R@10'])} | ${f(rawModel['MRR@10'])} | | |`,
);
const r10 = (s: Scores) => s['R@10'];
console.log('');
for (const run of runs) {
  const [kw, sem, hyb] = MODES.map((m) => run.http[m].scores);
  console.log(
    `Targets (${run.name}): keyword R@10 / BM25 ${(r10(kw!) / r10(bm25)).toFixed(3)} (≥ 0.95); semantic / raw model ${(r10(sem!) / r10(rawModel)).toFixed(3)} (≥ 0.97); hybrid ${f(r10(hyb!))} vs max(keyword, semantic) ${f(Math.max(r10(kw!), r10(sem!)))} (≥)`,
  );
}
const byKind = (kind: VectorsKind) => runs.find((r) => r.name === `distributed, ${label(kind)}`);
const [memoryRun, qdrantRun] = [byKind('in-process'), byKind('qdrant')];
if (memoryRun && qdrantRun)
  for (const mode of MODES) {
    const delta = r10(qdrantRun.http[mode].scores) - r10(memoryRun.http[mode].scores);
    const target = mode === 'keyword' ? '' : ` — target |Δ| ≤ 0.005 ${Math.abs(delta) <= 0.005 ? 'met' : 'MISSED'}`;
    console.log(
      `${mode} R@10 on Qdrant ${f(r10(qdrantRun.http[mode].scores))} vs in-process ${f(r10(memoryRun.http[mode].scores))}: Δ ${delta >= 0 ? '+' : ''}${delta.toFixed(3)}${target}`,
    );
  }
console.log(`Raw model embedding: ${(items.length / embedSeconds).toFixed(1)} texts/s.`);
for (const run of runs)
  console.log(
    `${run.name}: the service's index caught up ${run.catchUp.toFixed(1)} s after the last write${run.name.endsWith('Qdrant') ? ' (a full re-index of the tenant)' : ''} (${items.length} nodes).`,
  );
