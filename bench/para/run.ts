/**
 * npm run bench:para [-- --orphans=10000 --items=50 --mode=embedded|distributed --base-url=… --outbox=…]
 *
 * A benchmark (not a timed test) of background reclassification through the public API:
 * creates `items` PARA items, then `orphans` unassigned nodes (about one in five shares
 * words with an item), measures GET /nodes latency idle, then starts POST /para/rescan
 * and measures GET /nodes again while the job runs, and the time until the job is done.
 * `--mode=embedded` starts `npm start` itself; `--mode=distributed` drives a running
 * `npm run start:distributed` (`--base-url`, default http://127.0.0.1:8080, and its mail
 * `--outbox`, default ./data-distributed/outbox). Writes bench-results/para-<mode>.json.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { fmt, summarize } from '../graph/stats';
import { signIn, startEmbedded, type Target } from './server';

const { values: args } = parseArgs({
  options: {
    orphans: { type: 'string', default: '10000' },
    items: { type: 'string', default: '50' },
    mode: { type: 'string', default: 'embedded' },
    'base-url': { type: 'string', default: 'http://127.0.0.1:8080' },
    outbox: { type: 'string', default: './data-distributed/outbox' },
    concurrency: { type: 'string', default: '16' },
  },
});
const ORPHANS = Number(args.orphans);
const ITEMS = Number(args.items);
const MODE = args.mode === 'distributed' ? 'distributed' : 'embedded';

const TOPICS = [
  'astronomy telescope',
  'sourdough bread',
  'marathon running',
  'beekeeping hive',
  'woodworking joinery',
  'watercolor painting',
  'kubernetes cluster',
  'rust compiler',
  'chess openings',
  'tax returns',
];
const FILLER = ['notes', 'meeting', 'idea', 'draft', 'reminder', 'list', 'thoughts', 'summary', 'call', 'plan'];

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

async function main() {
  const target: Target =
    MODE === 'embedded'
      ? await startEmbedded()
      : { baseUrl: args['base-url']!, outboxDir: args.outbox!, stop: async () => {} };
  try {
    const api = `${target.baseUrl}/api/v1`;
    const auth = await signIn(target, `bench-para-${Date.now()}@example.com`);
    const headers = { authorization: auth, 'content-type': 'application/json' };
    const post = async (path: string, body: unknown) => {
      const res = await fetch(`${api}${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
      if (res.status >= 300) throw new Error(`${path}: ${res.status} ${await res.text()}`);
      return res.json() as Promise<Record<string, unknown>>;
    };

    console.log(`creating ${ITEMS} items and ${ORPHANS} orphan nodes (${MODE} mode)…`);
    await pool(ITEMS, 4, (i) =>
      post('/para', {
        category: (['projects', 'areas', 'resources'] as const)[i % 3],
        label: `${TOPICS[i % TOPICS.length]} ${i}`,
        description: `Everything about ${TOPICS[i % TOPICS.length]}`,
      }),
    );
    const t0 = performance.now();
    await pool(ORPHANS, Number(args.concurrency), (i) =>
      post('/nodes', {
        title:
          i % 5 === 0
            ? `${TOPICS[i % TOPICS.length]} ${FILLER[i % FILLER.length]} ${i}`
            : `${FILLER[i % FILLER.length]} ${FILLER[(i * 7) % FILLER.length]} ${i}`,
        content: 'Written by the PARA benchmark.',
      }),
    );
    console.log(`  nodes created in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    // Let the creation-time jobs of the items (queued before the nodes existed) drain.
    await new Promise((r) => setTimeout(r, 2000));

    const probe = async () => {
      const t = performance.now();
      const res = await fetch(`${api}/nodes?per_page=20`, { headers });
      await res.arrayBuffer();
      return performance.now() - t;
    };
    const idle: number[] = [];
    for (let i = 0; i < 300; i++) idle.push(await probe());

    const started = performance.now();
    const rescan = await post('/para/rescan', {});
    const jobId = String(rescan['job_id']);
    const busy: number[] = [];
    let job: Record<string, unknown> = {};
    for (;;) {
      busy.push(await probe());
      if (busy.length % 10 === 0) {
        job = (await (await fetch(`${api}/para/jobs/${jobId}`, { headers })).json()) as Record<string, unknown>;
        if (job['status'] === 'done' || job['status'] === 'failed') break;
      }
    }
    const seconds = (performance.now() - started) / 1000;
    const result = {
      mode: MODE,
      orphans: ORPHANS,
      items: ITEMS,
      queued: rescan['queued'],
      job,
      reclassify_seconds: Number(seconds.toFixed(2)),
      get_nodes_idle_ms: summarize(idle),
      get_nodes_during_ms: summarize(busy),
    };
    console.log(
      `rescan of ${String(rescan['queued'])} orphans against ${ITEMS} items: ${seconds.toFixed(1)} s, ` +
        `${String(job['assigned'])} assigned (status ${String(job['status'])})`,
    );
    console.log(
      `GET /nodes p95: idle ${fmt(result.get_nodes_idle_ms.p95)} ms (n=${idle.length}), ` +
        `during the job ${fmt(result.get_nodes_during_ms.p95)} ms (n=${busy.length}); ` +
        `p50 ${fmt(result.get_nodes_idle_ms.p50)} → ${fmt(result.get_nodes_during_ms.p50)} ms`,
    );
    mkdirSync('bench-results', { recursive: true });
    writeFileSync(`bench-results/para-${MODE}.json`, JSON.stringify(result, null, 2));
  } finally {
    await target.stop();
  }
}

await main();
