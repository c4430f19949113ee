/**
 * npm run bench:embed — the local embedder's cost on this machine: model load time,
 * passages/s one text at a time and in small length-sorted batches, query latency (p50/p95)
 * and the process's resident memory. Passages are the paragraphs of this repository's docs.
 * Usage: npm run bench:embed [-- --passages 200 --queries 100]
 */
import { readFileSync, readdirSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { createLocalEmbedder } from '@kg/embeddings/local';

const { values } = parseArgs({
  options: { passages: { type: 'string', default: '200' }, queries: { type: 'string', default: '100' } },
});
const root = new URL('../../', import.meta.url);
const docs = [
  'README.md',
  ...readdirSync(new URL('docs/', root))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];
const paragraphs = docs
  .flatMap((f) => readFileSync(new URL(f, root), 'utf8').split(/\n{2,}/))
  .map((p) => p.replace(/\s+/g, ' ').trim())
  .filter((p) => p.length >= 80);
const passages = Array.from({ length: Number(values.passages) }, (_, i) => paragraphs[i % paragraphs.length]!);
const queries = paragraphs.map((p) => p.split(/[.:;]/)[0]!.slice(0, 80)).slice(0, Number(values.queries));

const mib = () => Math.round(process.memoryUsage().rss / 2 ** 20);
const pct = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))]!;
const rssBefore = mib();
let t = performance.now();
const one = await createLocalEmbedder();
console.log(`model load            ${(performance.now() - t).toFixed(0)} ms`);
const avgChars = Math.round(passages.reduce((s, p) => s + p.length, 0) / passages.length);
for (const [label, batchSize] of [
  ['one at a time', 1],
  ['batches of 4', 4],
  ['batches of 16', 16],
] as const) {
  const e = batchSize === 1 ? one : await createLocalEmbedder({ batchSize });
  t = performance.now();
  await e.embed(passages, 'passage');
  const s = (performance.now() - t) / 1000;
  console.log(
    `passages, ${label.padEnd(14)}${(passages.length / s).toFixed(1)} texts/s (${passages.length} texts, avg ${avgChars} chars)  rss ${mib()} MiB`,
  );
  if (e !== one) await e.close();
}
const latencies: number[] = [];
for (const q of queries) {
  t = performance.now();
  await one.embed([q], 'query');
  latencies.push(performance.now() - t);
}
console.log(
  `query latency         p50 ${pct(latencies, 0.5).toFixed(1)} ms  p95 ${pct(latencies, 0.95).toFixed(1)} ms (${queries.length} queries)`,
);
console.log(`rss                   ${mib()} MiB with the model loaded (${rssBefore} MiB before loading)`);
await one.close();
