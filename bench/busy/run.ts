/**
 * npm run bench:busy [-- --mode=both|embedded|distributed --nodes=3000 --links-per-node=8
 *   --seconds=8 --connections=16]
 *
 * The hot path while the server works (issue 24): a tenant writes `nodes` notes of short prose
 * through the API (POST /nodes, 8 clients), then links each to `links-per-node` others
 * (PATCH /nodes/:id/links; ~24,000 links with the reverse ones), and the search service
 * embeds and indexes every note meanwhile. Right after the writes, while indexing still runs,
 * four requests are measured with `connections` clients (busy): GET /healthz, GET /nodes/:id,
 * neighbours (limit 50) and seed depth 3 (500 nodes), in turn, 1 s each, round after round
 * until each has had `seconds` or the index has caught up (asked after every second), so a
 * fast indexer cannot leave the last ones measured on a quiet server (each request first runs
 * 0.25 s untimed; the quiet phase's warm-up is 1 s).
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
import { measure, sampler, type Measured, type Probe } from '../http/load';
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
/** The busy phase's turn: each request this many seconds, then the next. */
const SLICE_S = 1;
/** Before its first busy second, each request runs this long untimed (the quiet phase: 1 s). */
const WARM_S = 0.25;
/** Idle time before the last RSS reading: two checks of the memory reducer (30 s apart) and a little. */
const SETTLE_S = 65;
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

function probeList(auth: string, ids: string[]): Probe[] {
  const a = '/api/v1';
  return [
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
}

const report = (label: string, m: Measured, note = '') => {
  log(`  ${label} ${m.name}: ${Math.round(m.rps)} rps, p50 ${fmt(m.p50)} ms, p95 ${fmt(m.p95)} ms${note}`);
  if (m.failed > 0) throw new Error(`${label} ${m.name}: ${m.failed} of ${m.requests} answers were not 2xx`);
};

/** Quiet: each request for SECONDS, one after another. */
async function quietProbes(target: Target, auth: string, ids: string[]) {
  const rows: Measured[] = [];
  for (const p of probeList(auth, ids)) {
    const m = await measure(target.baseUrl, p, CONNECTIONS, SECONDS);
    report('quiet', m);
    rows.push(m);
  }
  return rows;
}

/**
 * Busy: the four requests in turn, SLICE_S seconds each, round after round, while indexing runs
 * (each request at most SECONDS), so that every one is measured on the busy server however soon
 * the index catches up. `caughtUp` is asked after every slice; the busy phase ends at the first
 * yes, whose time it returns.
 */
async function busyProbes(target: Target, auth: string, ids: string[], caughtUp: () => Promise<boolean>) {
  const samplers = probeList(auth, ids).map((p) => sampler(target.baseUrl, p, CONNECTIONS));
  let caughtUpAt: number | null = null;
  rounds: while (samplers.some((m) => m.seconds < SECONDS))
    for (const m of samplers) {
      if (m.seconds >= SECONDS) continue;
      if (m.seconds === 0) await m.warm(WARM_S);
      await m.slice(SLICE_S);
      if (await caughtUp()) {
        caughtUpAt = performance.now();
        break rounds;
      }
    }
  const rows = samplers.map((m) => ({ ...m.result(), seconds: m.seconds }));
  for (const m of rows)
    if (m.seconds > 0) report('busy', m, ` (${m.seconds} s)`);
    else log(`  busy ${m.name}: not measured, the index caught up first`);
  return { rows, caughtUpAt };
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
    const busyPhase = await busyProbes(target, auth, sample, () => indexed(target, auth, last));
    const busy = busyPhase.rows;
    const busyUsed = busyCores();
    let caughtUpAt = busyPhase.caughtUpAt;
    while (caughtUpAt === null) {
      if (await indexed(target, auth, last)) caughtUpAt = performance.now();
      else if (performance.now() - t0 > 1_800_000) throw new Error('the index did not catch up in 30 minutes');
      else await new Promise((r) => setTimeout(r, 1000));
    }
    const caughtUpS = (caughtUpAt - t0) / 1000;
    const nodesPerS = NODES / caughtUpS;
    log(`${mode}: index caught up ${caughtUpS.toFixed(1)} s after the first write (${nodesPerS.toFixed(1)} notes/s)`);
    const quietCores = cores(target);
    const quiet = await quietProbes(target, auth, sample);
    const quietUsed = quietCores();
    const rssEnd = target.rssMiB();
    // Then idle: two of the memory reducer's checks (MEMORY_REDUCE_INTERVAL_MS, 30 s by default;
    // the first may still see the quiet phase's requests), and the RSS the server settles at.
    await new Promise((r) => setTimeout(r, SETTLE_S * 1000));
    const rssSettled = target.rssMiB();
    log(
      `${mode}: RSS ${rssEnd.toFixed(0)} MiB after the quiet phase, ${rssSettled.toFixed(0)} MiB after ${SETTLE_S} s idle`,
    );
    return {
      mode,
      written_s: writtenS,
      index_caught_up_s: caughtUpS,
      notes_per_s: nodesPerS,
      cores: { writing: writeCores, busy: busyUsed, quiet: quietUsed },
      /** Resident memory of the server's processes (embedded: the one process and its children). */
      rss_mib: { written: rssWritten, end: rssEnd, settled: rssSettled },
      rows: busy.map((b, k) => ({
        name: b.name,
        busy: b,
        quiet: quiet[k]!,
        /** null: the index caught up before this request's first busy second. */
        p95_ratio: b.seconds > 0 ? b.p95 / quiet[k]!.p95 : null,
      })),
    };
  } finally {
    await target.stop();
  }
}

const results = [];
for (const mode of MODES)
  results.push(mode === 'distributed' ? await withDistributedLock(() => runMode(mode), log) : await runMode(mode));

log(
  `\n## bench:busy (${NODES} notes, ${LINKS} links each, ${CONNECTIONS} clients; busy: the requests in turn, ` +
    `${SLICE_S} s each, while indexing runs, at most ${SECONDS} s each; quiet: ${SECONDS} s each)\n`,
);
for (const r of results) {
  log(
    `### ${r.mode}: written in ${r.written_s.toFixed(1)} s; index caught up after ${r.index_caught_up_s.toFixed(1)} s: ` +
      `${r.notes_per_s.toFixed(1)} notes/s (target ≥ ${INDEXING_BASELINE}: ${r.notes_per_s >= INDEXING_BASELINE ? 'met' : 'NOT met'}); ` +
      `cores used: writing ${r.cores.writing.toFixed(2)}, busy ${r.cores.busy.toFixed(2)}, quiet ${r.cores.quiet.toFixed(2)}; ` +
      `server RSS ${r.rss_mib.written.toFixed(0)} MiB once written, ${r.rss_mib.end.toFixed(0)} MiB after the quiet phase, ` +
      `${r.rss_mib.settled.toFixed(0)} MiB after ${SETTLE_S} s idle\n`,
  );
  log(
    '| request | busy p95 | quiet p95 | busy ÷ quiet (≤ 2) | busy rps | quiet rps | busy seconds (while indexing) | failed |',
  );
  log('|---|---|---|---|---|---|---|---|');
  for (const row of r.rows)
    log(
      `| ${row.name} | ${fmt(row.busy.p95)} | ${fmt(row.quiet.p95)} | ${row.p95_ratio === null ? '– (caught up first)' : `${row.p95_ratio.toFixed(2)} ${row.p95_ratio <= 2 ? '' : '(NOT met)'}`} | ` +
        `${Math.round(row.busy.rps)} | ${Math.round(row.quiet.rps)} | ${row.busy.seconds} | ${row.busy.failed + row.quiet.failed} |`,
    );
  log('');
}
mkdirSync('bench-results', { recursive: true });
writeFileSync('bench-results/busy.json', JSON.stringify({ when: new Date().toISOString(), results }, null, 2));
log('written: bench-results/busy.json');
