/**
 * npm run bench:ingest [-- --captures=1000 --mode=embedded|distributed --base-url=… --outbox=… --concurrency=16]
 *
 * A benchmark (not a timed test) of the ingest pipeline end to end through the public API:
 * creates `captures` note captures, waits until every one is processed, and reports
 * captures/s (first POST to last processed), the wait from creation to claim and the run
 * (claim to processed), and each stage's p50/p95 from the captures' provenance. Beside it,
 * the same stages run in this process with no services around them, and the raw throughput of the
 * embedding model (the local provider, one note at a time), measured in this process before the
 * captures are created: every capture's text is embedded once (stage 5's similarity request and
 * the search index share search's embedding cache), so model texts/s is the pipeline's bound.
 * `--mode=embedded` starts `npm start` itself; `--mode=distributed` drives a running
 * `npm run start:distributed` (`--base-url`, default http://127.0.0.1:8080, and its mail
 * `--outbox`, default ./data-distributed/outbox).
 * Writes bench-results/ingest-<mode>.json.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { fmt, summarize } from '../graph/stats';
import { signIn, startEmbedded, type Target } from '../para/server';
import { inProcessLimit } from './limit';
import { modelThroughput } from './model';

const { values: args } = parseArgs({
  options: {
    captures: { type: 'string', default: '1000' },
    mode: { type: 'string', default: 'embedded' },
    'base-url': { type: 'string', default: 'http://127.0.0.1:8080' },
    outbox: { type: 'string', default: './data-distributed/outbox' },
    concurrency: { type: 'string', default: '16' },
  },
});
const N = Number(args.captures);
const MODE = args.mode === 'distributed' ? 'distributed' : 'embedded';

const SUBJECTS = ['heron', 'oak tree', 'river otter', 'moss', 'kestrel', 'beaver dam', 'fern', 'salmon run'];
export const noteText = (i: number) => {
  const a = SUBJECTS[i % SUBJECTS.length]!;
  const b = SUBJECTS[(i * 3 + 1) % SUBJECTS.length]!;
  return (
    `Observation ${i}: the ${a} was seen near the ${b} at dawn. ` +
    `The ${a} stayed for twenty minutes while the light changed. ` +
    `Notes on the ${b}: quiet, cold water, and a light wind from the north. ` +
    `Compare with the ${a} seen last week further upstream.`
  );
};

async function pool<T>(n: number, concurrency: number, fn: (i: number) => Promise<T>): Promise<T[]> {
  const out: T[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < n) {
        const i = next++;
        out[i] = await fn(i);
      }
    }),
  );
  return out;
}

interface Stage {
  name: string;
  started_at: string;
  finished_at: string;
  model: string;
}

async function main() {
  const target: Target =
    MODE === 'embedded'
      ? await startEmbedded()
      : { baseUrl: args['base-url']!, outboxDir: args.outbox!, stop: async () => {} };
  try {
    const api = `${target.baseUrl}/api/v1`;
    const auth = await signIn(target, `bench-ingest-${Date.now()}@example.com`);
    const headers = { authorization: auth, 'content-type': 'application/json' };
    const get = async <T>(path: string) => {
      const res = await fetch(`${api}${path}`, { headers });
      if (res.status >= 300) throw new Error(`${path}: ${res.status} ${await res.text()}`);
      return (await res.json()) as T;
    };

    const model = await modelThroughput(Math.min(N, 300), (i) => `Field note ${i}\n\n${noteText(i)}`);
    console.log(
      `embedding model ${model.model}: ${model.texts_per_second} texts/s one at a time ` +
        `(p50 ${fmt(model.embed_ms.p50)} ms, p95 ${fmt(model.embed_ms.p95)} ms, n=${model.n})`,
    );
    console.log(`creating ${N} note captures (${MODE} mode)…`);
    const t0 = performance.now();
    const ids = await pool(N, Number(args.concurrency), async (i) => {
      const res = await fetch(`${api}/captures`, {
        method: 'POST',
        headers,
        body: JSON.stringify({
          title: `Field note ${i}`,
          content_type: 'note',
          source: 'cli',
          raw_content: noteText(i),
        }),
      });
      if (res.status !== 201) throw new Error(`POST /captures: ${res.status} ${await res.text()}`);
      return ((await res.json()) as { id: string }).id;
    });
    const created = performance.now();
    console.log(`  created in ${((created - t0) / 1000).toFixed(1)} s`);
    let processed = 0;
    for (;;) {
      const [done, failed] = await Promise.all([
        get<{ total: number }>('/captures?status=processed&per_page=1'),
        get<{ total: number }>('/captures?status=failed&per_page=1'),
      ]);
      processed = done.total;
      if (processed + failed.total >= N) {
        if (failed.total) console.log(`  ${failed.total} captures failed`);
        break;
      }
      await new Promise((r) => setTimeout(r, 200));
    }
    const seconds = (performance.now() - t0) / 1000;

    // Per-stage durations from provenance (a sample of up to 300 captures).
    const stageMs = new Map<string, number[]>();
    const models = new Map<string, string>();
    const sample = ids.filter((_, i) => i % Math.max(1, Math.floor(N / 300)) === 0);
    const runMs: number[] = [];
    const waitMs: number[] = [];
    await pool(sample.length, 8, async (i) => {
      const [capture, prov] = await Promise.all([
        get<{ created_at: string }>(`/captures/${sample[i]}`),
        get<{ runs: { started_at: string | null; finished_at: string | null; stages: Stage[] }[] }>(
          `/captures/${sample[i]}/provenance`,
        ),
      ]);
      const run = prov.runs.at(-1);
      if (run?.started_at && run.finished_at) {
        waitMs.push(Date.parse(run.started_at) - Date.parse(capture.created_at));
        runMs.push(Date.parse(run.finished_at) - Date.parse(run.started_at));
      }
      for (const st of run?.stages ?? []) {
        const ms = Date.parse(st.finished_at) - Date.parse(st.started_at);
        stageMs.set(st.name, [...(stageMs.get(st.name) ?? []), ms]);
        models.set(st.name, st.model);
      }
    });
    const stages = Object.fromEntries(
      [...stageMs].map(([name, ms]) => [name, { model: models.get(name), ...summarize(ms) }]),
    );
    const limit = await inProcessLimit(Math.min(N, 500), noteText);
    const result = {
      mode: MODE,
      captures: N,
      processed,
      seconds: Number(seconds.toFixed(2)),
      captures_per_second: Number((processed / seconds).toFixed(1)),
      queue_wait_ms: summarize(waitMs),
      run_ms: summarize(runMs),
      stages_ms: stages,
      in_process_limit: limit,
      embedding_model: model,
      /** Captures/s as a share of the model's texts/s; each capture needs one embedding, so 1 is the bound. */
      ratio_to_model: Number((processed / seconds / model.texts_per_second).toFixed(3)),
    };
    console.log(`${processed}/${N} processed in ${seconds.toFixed(1)} s: ${result.captures_per_second} captures/s`);
    console.log(
      `  queued → claimed p50 ${fmt(result.queue_wait_ms.p50)} ms p95 ${fmt(result.queue_wait_ms.p95)} ms; ` +
        `claimed → processed p50 ${fmt(result.run_ms.p50)} ms p95 ${fmt(result.run_ms.p95)} ms`,
    );
    for (const [name, st] of Object.entries(stages))
      console.log(`  ${name.padEnd(10)} p50 ${fmt(st.p50)} ms  p95 ${fmt(st.p95)} ms  (n=${st.n}, ${st.model})`);
    console.log(
      `embedding model: ${model.texts_per_second} texts/s → ${result.captures_per_second} captures/s is ` +
        `${result.ratio_to_model} of it (bound 1: one embedding a capture)`,
    );
    console.log(
      `in-process limit (extract + summarise, no services): ${limit.captures_per_second} captures/s ` +
        `(extract p95 ${fmt(limit.extract_ms.p95)} ms, summarise p95 ${fmt(limit.summarise_ms.p95)} ms)`,
    );
    mkdirSync('bench-results', { recursive: true });
    writeFileSync(`bench-results/ingest-${MODE}.json`, JSON.stringify(result, null, 2));
  } finally {
    await target.stop();
  }
}

await main();
