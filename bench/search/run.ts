/**
 * npm run bench:search — known-item quality of GET /nodes in keyword, semantic and hybrid mode
 * on real third-party text (Python standard-library docstrings: first line as the query, the
 * rest as the node; bench/search/dataset.py), next to a plain BM25 reference (SQLite FTS5,
 * bench/search/bm25.py) and the raw embedding model scored exhaustively outside the service.
 * Reported split only; the tuning split is kept for choosing weights (none is tuned here).
 */
import { execFileSync } from 'node:child_process';
import { createEmbedder } from '@kg/embeddings';
import { startEmbedded, signIn } from '../para/server';

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
const target = await startEmbedded();
try {
  const auth = await signIn(target, `bench-search-${Date.now()}@example.com`);
  const api = `${target.baseUrl}/api/v1`;
  const headers = { authorization: auth, 'content-type': 'application/json' };
  const nodeOf = new Map<string, string>();
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
  const catchUp = (performance.now() - written) / 1000;
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
  console.log(`\nKnown-item set: ${items.length} Python stdlib docstrings, ${reported.length} reported queries\n`);
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
  console.log(
    `\nRaw model embedding: ${(items.length / embedSeconds).toFixed(1)} texts/s; service indexing caught up ${catchUp.toFixed(1)} s after the last write (${items.length} nodes).`,
  );
} finally {
  await target.stop();
}
