/**
 * npm run bench:busy [-- --mode=both|embedded|distributed --nodes=3000 --links-per-node=8
 *   --seconds=8 --connections=16]
 *
 * The hot path while the server works (issue 24): a tenant writes `nodes` notes of short prose
 * through the API (POST /nodes, 8 clients), then links each to `links-per-node` others
 * (PATCH /nodes/:id/links; ~24,000 links with the reverse ones), and the search service
 * embeds and indexes every note meanwhile. Right after the writes, while indexing still runs,
 * four requests are measured one after another with `connections` clients for `seconds` each
 * (busy): GET /healthz, GET /nodes/:id, neighbours (limit 50) and seed depth 3 (500 nodes).
 * Once the index has caught up (the last notes written are found by semantic search of their
 * own text), the same four again (quiet). Prints busy and quiet p95 and their ratio (target
 * ≤ 2), the indexing throughput (notes from the first write to the index caught up, target
 * ≥ 27.8/s, the figure measured when issue 24 was filed), and the cores the server's
 * processes used in each phase (their CPU time ÷ wall time, from /proc). Writes
 * bench-results/busy.json.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { fmt } from '../graph/stats';
import { BENCH_ENV } from '../http/servers';
import { measure, type Measured } from '../http/load';
import { credentials } from '../http/tenant';
import { startDistributedTarget, startEmbeddedTarget, withDistributedLock, type Target } from '../noisy/servers';
import { processTree } from '../noisy/rss';

const { values: args } = parseArgs({
  options: {
    mode: { type: 'string', default: 'both' },
    nodes: { type: 'string', default: '3000' },
    'links-per-node': { type: 'string', default: '8' },
    seconds: { type: 'string', default: '8' },
    connections: { type: 'string', default: '16' },
  },
});
const NODES = Number(args.nodes);
const LINKS = Number(args['links-per-node']);
const SECONDS = Number(args.seconds);
const CONNECTIONS = Number(args.connections);
if (!['both', 'embedded', 'distributed'].includes(args.mode!))
  throw new Error(`--mode: both, embedded or distributed, not ${args.mode}`);
const MODES: Array<'embedded' | 'distributed'> =
  args.mode === 'both' ? ['embedded', 'distributed'] : [args.mode as 'embedded' | 'distributed'];
/** Indexing throughput when issue 24 was filed (embedded, 2 cores), notes/s. */
const INDEXING_BASELINE = 27.8;
const log = (s: string) => console.log(s);

/**
 * The bench measures cost under load, not the limiter's 429s: the embedded server inherits this
 * process's environment, the distributed services are handed it.
 */
const SERVER_ENV: Record<string, string> = {
  ...BENCH_ENV,
  SEARCH_RATE_LIMIT_PER_MINUTE: '100000000',
  SEARCH_RATE_LIMIT_PER_CREDENTIAL_PER_MINUTE: '100000000',
};
Object.assign(process.env, SERVER_ENV);

const WORDS = (
  'river garden lamp orbit cedar violin harbor pepper quartz meadow falcon canyon ember lantern ' +
  'tundra willow compass saffron glacier marble thistle beacon copper prairie nectar summit ' +
  'pebble harvest cobalt juniper velvet anchor bramble cinder delta fjord grove hazel ivory ' +
  'jasmine kelp lilac mosaic nimbus opal parsley quill raven sierra tidal umber vesper walnut'
).split(' ');

/** A note of ~40 words, distinct per index: what a person writes, not a benchmark string. */
function prose(i: number): { title: string; content: string } {
  const w = (k: number) => WORDS[(i * 7 + k * 13 + ((i >> 3) % 11)) % WORDS.length]!;
  const title = `Note ${i}: the ${w(0)} and the ${w(1)}`;
  const content =
    `Thinking about the ${w(2)} near the ${w(3)} today, note ${i}. The ${w(4)} reminded me of a ${w(5)} ` +
    `I saw by the ${w(6)}, and how the ${w(7)} changes with the seasons. Next time: bring the ${w(8)}, ` +
    `ask about the ${w(9)}, and write down what the ${w(10)} looked like at dusk.`;
  return { title, content };
}

/** CPU seconds (user + system) of a process tree, from /proc/<pid>/stat. */
function cpuSeconds(roots: number[]): number {
  const tick = 100; // USER_HZ on Linux
  let sum = 0;
  for (const root of roots)
    for (const pid of processTree(root)) {
      try {
        const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
        const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        sum += (Number(f[11]) + Number(f[12])) / tick; // utime, stime
      } catch {
        // gone meanwhile
      }
    }
  return sum;
}

function cores(target: Target) {
  const roots = () => Object.values(target.processes()).flat();
  const t0 = performance.now();
  const c0 = cpuSeconds(roots());
  return () => (cpuSeconds(roots()) - c0) / ((performance.now() - t0) / 1000);
}

async function api<T>(target: Target, auth: string, method: string, path: string, body?: unknown): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    const res = await fetch(`${target.baseUrl}/api/v1${path}`, {
      method,
      headers: { authorization: auth, ...(body ? { 'content-type': 'application/json' } : {}) },
      ...(body ? { body: JSON.stringify(body) } : {}),
    }).catch((err: Error) => ({ status: 0, text: () => Promise.resolve(err.message) }) as Response);
    const text = await res.text();
    if (res.status >= 200 && res.status < 300) return (text ? JSON.parse(text) : null) as T;
    if (attempt >= 2 || (res.status !== 0 && res.status !== 503))
      throw new Error(`${method} ${path}: ${res.status} ${text.slice(0, 300)}`);
  }
}

async function pool(count: number, clients: number, fn: (i: number) => Promise<void>) {
  let next = 0;
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (next < count) await fn(next++);
    }),
  );
}

/** Whether semantic search finds each of `probes` (node id, text) on its first page. */
async function indexed(target: Target, auth: string, probes: Array<{ id: string; text: string }>) {
  for (const p of probes) {
    const page = await api<{ data: Array<{ id: string }> }>(
      target,
      auth,
      'GET',
      `/nodes?mode=semantic&per_page=10&query=${encodeURIComponent(p.text)}`,
    ).catch(() => null); // the vector index not made yet (503): not caught up
    if (!page?.data.some((n) => n.id === p.id)) return false;
  }
  return true;
}

async function probes(target: Target, auth: string, ids: string[], label: string, stillBusy?: () => Promise<boolean>) {
  const a = '/api/v1';
  const list = [
    { name: 'GET /healthz', paths: ['/healthz'] },
    { name: 'GET /nodes/:id', paths: ids.map((id) => `${a}/nodes/${id}`), authorization: auth },
    {
      name: 'GET /graph/neighbors/:id?limit=50',
      paths: ids.map((id) => `${a}/graph/neighbors/${id}?limit=50`),
      authorization: auth,
    },
    {
      name: 'GET /graph/seed?depth=3 (500 nodes)',
      paths: ids.map((id) => `${a}/graph/seed?seed=${id}&depth=3&max_nodes=500`),
      authorization: auth,
    },
  ];
  const rows: Array<Measured & { busy_at_end: boolean | null }> = [];
  for (const p of list) {
    const m = await measure(target.baseUrl, p, CONNECTIONS, SECONDS);
    const busy = stillBusy ? await stillBusy() : null;
    log(
      `  ${label} ${m.name}: ${Math.round(m.rps)} rps, p50 ${fmt(m.p50)} ms, p95 ${fmt(m.p95)} ms` +
        (busy === null ? '' : busy ? ' (indexing still running)' : ' (indexing had caught up)'),
    );
    if (m.failed > 0) throw new Error(`${label} ${m.name}: ${m.failed} of ${m.requests} answers were not 2xx`);
    rows.push({ ...m, busy_at_end: busy });
  }
  return rows;
}

async function runMode(mode: 'embedded' | 'distributed') {
  log(`${mode}: starting the server…`);
  const target = mode === 'embedded' ? await startEmbeddedTarget() : await startDistributedTarget(SERVER_ENV);
  try {
    const creds = await credentials(target, `busy-${mode}`);
    const auth = creds.apiKey;
    const t0 = performance.now();
    const writing = cores(target);
    const ids: string[] = new Array(NODES);
    await pool(NODES, 8, async (i) => {
      ids[i] = (await api<{ id: string }>(target, auth, 'POST', '/nodes', prose(i))).id;
    });
    await pool(NODES, 8, async (i) => {
      const targets = new Set<string>();
      for (let k = 1; targets.size < LINKS; k++) targets.add(ids[(i * 31 + k * k * 17) % NODES]!);
      targets.delete(ids[i]!);
      const links = [...targets].map((target_id, k) => ({ target_id, type: 'related', weight: 0.2 + (k % 8) / 10 }));
      await api(target, auth, 'PATCH', `/nodes/${ids[i]}/links`, { links });
    });
    const writtenS = (performance.now() - t0) / 1000;
    const writeCores = writing();
    const rssWritten = target.rssMiB();
    log(
      `${mode}: ${NODES} notes and their links written in ${writtenS.toFixed(1)} s (${writeCores.toFixed(2)} cores, ${rssWritten.toFixed(0)} MiB RSS)`,
    );

    const last = Array.from({ length: 5 }, (_, k) => NODES - 1 - k * Math.floor(NODES / 50)).map((i) => ({
      id: ids[i]!,
      text: `${prose(i).title}. ${prose(i).content}`,
    }));
    const sample = Array.from({ length: 64 }, (_, k) => ids[(k * 7919) % NODES]!);
    const busyCores = cores(target);
    const busy = await probes(target, auth, sample, 'busy', async () => !(await indexed(target, auth, last)));
    const busyUsed = busyCores();
    let caughtUpS = 0;
    for (;;) {
      if (await indexed(target, auth, last)) {
        caughtUpS = (performance.now() - t0) / 1000;
        break;
      }
      if (performance.now() - t0 > 1_800_000) throw new Error('the index did not catch up in 30 minutes');
      await new Promise((r) => setTimeout(r, 1000));
    }
    const nodesPerS = NODES / caughtUpS;
    log(`${mode}: index caught up ${caughtUpS.toFixed(1)} s after the first write (${nodesPerS.toFixed(1)} notes/s)`);
    const quietCores = cores(target);
    const quiet = await probes(target, auth, sample, 'quiet');
    const quietUsed = quietCores();
    const rssEnd = target.rssMiB();
    return {
      mode,
      written_s: writtenS,
      index_caught_up_s: caughtUpS,
      notes_per_s: nodesPerS,
      cores: { writing: writeCores, busy: busyUsed, quiet: quietUsed },
      /** Resident memory of the server's processes (embedded: the one process and its children). */
      rss_mib: { written: rssWritten, end: rssEnd },
      rows: busy.map((b, k) => ({
        name: b.name,
        busy: b,
        quiet: quiet[k]!,
        p95_ratio: b.p95 / quiet[k]!.p95,
      })),
    };
  } finally {
    await target.stop();
  }
}

const results = [];
for (const mode of MODES)
  results.push(mode === 'distributed' ? await withDistributedLock(() => runMode(mode), log) : await runMode(mode));

log(`\n## bench:busy (${NODES} notes, ${LINKS} links each, ${CONNECTIONS} clients, ${SECONDS} s per request)\n`);
for (const r of results) {
  log(
    `### ${r.mode}: written in ${r.written_s.toFixed(1)} s; index caught up after ${r.index_caught_up_s.toFixed(1)} s: ` +
      `${r.notes_per_s.toFixed(1)} notes/s (target ≥ ${INDEXING_BASELINE}: ${r.notes_per_s >= INDEXING_BASELINE ? 'met' : 'NOT met'}); ` +
      `cores used: writing ${r.cores.writing.toFixed(2)}, busy ${r.cores.busy.toFixed(2)}, quiet ${r.cores.quiet.toFixed(2)}; ` +
      `server RSS ${r.rss_mib.written.toFixed(0)} MiB once written, ${r.rss_mib.end.toFixed(0)} MiB at the end\n`,
  );
  log(
    '| request | busy p95 | quiet p95 | busy ÷ quiet (≤ 2) | busy rps | quiet rps | indexing at the end of busy | failed |',
  );
  log('|---|---|---|---|---|---|---|---|');
  for (const row of r.rows)
    log(
      `| ${row.name} | ${fmt(row.busy.p95)} | ${fmt(row.quiet.p95)} | ${row.p95_ratio.toFixed(2)} ${row.p95_ratio <= 2 ? '' : '(NOT met)'} | ` +
        `${Math.round(row.busy.rps)} | ${Math.round(row.quiet.rps)} | ${row.busy.busy_at_end ? 'running' : 'caught up'} | ${row.busy.failed + row.quiet.failed} |`,
    );
  log('');
}
mkdirSync('bench-results', { recursive: true });
writeFileSync('bench-results/busy.json', JSON.stringify({ when: new Date().toISOString(), results }, null, 2));
log('written: bench-results/busy.json');
