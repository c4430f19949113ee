/**
 * npm run bench:noisy-neighbour [-- --mode=both|embedded|distributed --strict --nodes=300
 *   --idle=40 --flood-seconds=30 --clients=64 --interval=1000 --bomb-mib=1024 --bombs=docx,pdf]
 *
 * Does one tenant's load reach another's? Issue 21's targets, measured through the public API
 * on servers the bench starts itself with their default limits (embedded: `npm start`'s entry
 * on a fresh DATA_DIR; distributed: the seven processes on scripts/infra, holding
 * `flock /tmp/kg-distributed.lock`). Tenant B holds a few hundred nodes of prose (Python
 * standard-library docstrings, bench/search/dataset.py); B's semantic search (one client, one
 * request every `interval` ms, never the same query twice) is timed three times:
 *   idle   B alone;
 *   flood  while tenant A sends semantic searches from `clients` concurrent clients, distinct
 *          queries (no cache helps), counting A's answers by status;
 *   bombs  while A uploads a DOCX zip bomb and a PDF FlateDecode bomb (`bomb-mib` inflated
 *          each, @kg/test-hostile-files) one after the other, each until its capture ends;
 *          the server's resident memory (the process tree: children such as extraction
 *          sandboxes count) is sampled every 100 ms: embedded the server, distributed each
 *          service and their total.
 * Prints a table and the targets (PASS/FAIL): B's p50 during the flood ≤ max(4 × idle p50,
 * 300 ms) with A answered 429; RSS growth during a bomb < 400 MiB; no 5xx (nor unanswered
 * request) to anyone. Writes bench-results/noisy-<mode>.json; exits 1 on a failed target only
 * with --strict.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { docxBomb, pdfBomb } from '@kg/test-hostile-files';
import { fmt } from '../graph/stats';
import { ROOT } from '../search/servers';
import { allRunning, peakGrowth, sampleRss } from './rss';
import {
  startDistributedTarget,
  startEmbeddedTarget,
  useDefaultLimits,
  withDistributedLock,
  type Target,
} from './servers';
import {
  addNodes,
  captureEnd,
  distinctQueries,
  failures,
  floodInWorker,
  probe,
  signedInTenant,
  sleep,
  upload,
  waitIndexed,
  type Flooded,
  type Item,
  type Measured,
  type Tally,
} from './traffic';

const { values: args } = parseArgs({
  options: {
    mode: { type: 'string', default: 'both' },
    strict: { type: 'boolean', default: false },
    nodes: { type: 'string', default: '300' },
    'a-nodes': { type: 'string', default: '50' },
    idle: { type: 'string', default: '40' },
    'flood-seconds': { type: 'string', default: '30' },
    clients: { type: 'string', default: '64' },
    interval: { type: 'string', default: '1000' },
    'bomb-mib': { type: 'string', default: '1024' },
    bombs: { type: 'string', default: 'docx,pdf' },
    'bomb-timeout': { type: 'string', default: '300' },
  },
});
const NODES = Number(args.nodes);
const A_NODES = Number(args['a-nodes']);
const CLIENTS = Number(args.clients);
const INTERVAL = Number(args.interval);
const BOMB_BYTES = Number(args['bomb-mib']) * 1024 * 1024;
const RSS_LIMIT_MIB = 400;
const log = (s: string) => console.log(s);

const items = execFileSync('python3', [path.join(ROOT, 'bench/search/dataset.py'), String(NODES + A_NODES)], {
  encoding: 'utf8',
})
  .trim()
  .split('\n')
  .map((l) => JSON.parse(l) as Item);
if (items.length < NODES + A_NODES) throw new Error(`dataset.py gave ${items.length} items, ${NODES + A_NODES} needed`);

const BOMBS: Record<string, { filename: string; make: () => Buffer }> = {
  docx: { filename: 'bomb.docx', make: () => docxBomb({ inflatedBytes: BOMB_BYTES, declaredBytes: 1_000 }) },
  pdf: { filename: 'bomb.pdf', make: () => pdfBomb({ inflatedBytes: BOMB_BYTES }) },
};

interface BombResult {
  kind: string;
  bytes: number;
  upload_status: number;
  upload_answer?: string;
  capture_status: string;
  capture_error: string | null;
  seconds: number;
  /** Peak resident memory growth (MiB) over the phase's start while this bomb was handled, by process group. */
  rss_growth_mib: Record<string, number>;
  /** Resident memory (MiB) when this bomb's upload started (a bomb before it may have left some behind). */
  rss_before_mib: Record<string, number>;
}

interface ModeResult {
  mode: string;
  at: string;
  nodes: number;
  idle: Measured;
  flood: { b: Measured; a: Flooded };
  bombs: {
    b: Measured;
    bombs: BombResult[];
    rss_start_mib: Record<string, number>;
    rss_growth_mib: Record<string, number>;
    server_running_after: boolean;
    a_polls: Tally;
  };
  targets: Array<{ target: string; measured: string; pass: boolean }>;
  seconds: number;
  /** The machine's 1-minute load average at the start of each phase (the runs share it). */
  load_average: Record<string, number>;
}

async function runMode(mode: 'embedded' | 'distributed'): Promise<ModeResult> {
  const t0 = performance.now();
  log(`\n${mode}: starting the server…`);
  const target: Target = mode === 'embedded' ? await startEmbeddedTarget() : await startDistributedTarget();
  try {
    const a = await signedInTenant(target, 'a');
    const b = await signedInTenant(target, 'b');
    const up = performance.now();
    log(
      `${mode}: up after ${((up - t0) / 1000).toFixed(0)} s; ${NODES} nodes for B and ${A_NODES} for A, then the index…`,
    );
    const bItems = items.slice(0, NODES);
    const aItems = items.slice(NODES);
    const bIds = await addNodes(b, bItems);
    const aIds = await addNodes(a, aItems);
    const probes = (its: Item[], ids: string[]) =>
      [0, its.length >> 1, its.length - 1].map((i) => ({ item: its[i]!, id: ids[i]! }));
    await waitIndexed(b, probes(bItems, bIds));
    await waitIndexed(a, probes(aItems, aIds));
    log(`${mode}: indexed after ${((performance.now() - up) / 1000).toFixed(0)} s`);

    const load: Record<string, number> = { idle: loadavg()[0]! };
    const bQueries = distinctQueries(bItems, 'b');
    await probe(b, bQueries, { count: 5, intervalMs: INTERVAL }); // warm-up
    const idle = await probe(b, bQueries, { count: Number(args.idle), intervalMs: INTERVAL });
    log(`${mode}: idle B p50 ${fmt(idle.latency.p50)} ms, p95 ${fmt(idle.latency.p95)} ms (${idle.latency.n})`);

    load['flood'] = loadavg()[0]!;
    const floodEnds = performance.now() + 2000 + 1000 * Number(args['flood-seconds']);
    const aFlood = floodInWorker(a, CLIENTS, items);
    await sleep(2000); // let the flood build up
    const bFlood = await probe(b, bQueries, {
      until: () => performance.now() > floodEnds,
      intervalMs: INTERVAL,
      min: 10,
    });
    const aResult = await aFlood.stop();
    log(
      `${mode}: flood B p50 ${fmt(bFlood.latency.p50)} ms, p95 ${fmt(bFlood.latency.p95)} ms (${bFlood.latency.n}); ` +
        `A ${aResult.requests} requests ${JSON.stringify(aResult.tally)}`,
    );
    await sleep(2000);

    load['bombs'] = loadavg()[0]!;
    const bombs = await bombPhase(mode, target, a, b, bQueries);
    const result: ModeResult = {
      mode,
      at: new Date().toISOString(),
      nodes: NODES,
      idle,
      flood: { b: bFlood, a: aResult },
      bombs,
      targets: [],
      seconds: 0,
      load_average: load,
    };
    result.targets = targets(result);
    result.seconds = (performance.now() - t0) / 1000;
    return result;
  } finally {
    await target.stop();
  }
}

async function bombPhase(
  mode: string,
  target: Target,
  a: Awaited<ReturnType<typeof signedInTenant>>,
  b: Awaited<ReturnType<typeof signedInTenant>>,
  bQueries: () => string,
): Promise<ModeResult['bombs']> {
  const kinds = args.bombs.split(',').filter((k) => k in BOMBS);
  const files = kinds.map((k) => ({ kind: k, ...BOMBS[k]!, bytes: BOMBS[k]!.make() }));
  const groups = target.processes();
  const sampler = sampleRss(groups);
  let over = false;
  const bProbe = probe(b, bQueries, { until: () => over, intervalMs: INTERVAL, min: 10 });
  const results: BombResult[] = [];
  const windows: Array<[number, number]> = [];
  const polls: Tally = {};
  for (const f of files) {
    const from = sampler.now();
    log(
      `${mode}: A uploads a ${f.kind} bomb (${f.bytes.length.toLocaleString()} bytes, ${args['bomb-mib']} MiB inflated)…`,
    );
    const up = await upload(a, f.filename, f.bytes);
    const end = up.id
      ? await captureEnd(a, up.id, 1000 * Number(args['bomb-timeout']), polls)
      : { status: 'not accepted', error: null, seconds: 0 };
    await sleep(1000); // memory taken late still counts
    windows.push([from, sampler.now()]);
    results.push({
      kind: f.kind,
      bytes: f.bytes.length,
      upload_status: up.status,
      ...(up.status !== 201 ? { upload_answer: up.body } : {}),
      capture_status: end.status,
      capture_error: end.error,
      seconds: end.seconds,
      rss_growth_mib: {},
      rss_before_mib: {},
    });
    log(
      `  ${f.kind}: upload ${up.status}, capture ${end.status} after ${end.seconds.toFixed(1)} s${end.error ? ` (${end.error})` : ''}`,
    );
  }
  over = true;
  const bResult = await bProbe;
  const samples = sampler.stop();
  results.forEach((r, i) => {
    r.rss_growth_mib = peakGrowth(samples, ...windows[i]!);
    r.rss_before_mib = (samples.find((x) => x.at >= windows[i]![0]) ?? samples[0]!).mib;
  });
  return {
    b: bResult,
    bombs: results,
    rss_start_mib: samples[0]!.mib,
    rss_growth_mib: peakGrowth(samples),
    server_running_after: allRunning(groups),
    a_polls: polls,
  };
}

function targets(r: ModeResult): ModeResult['targets'] {
  const limit = Math.max(4 * r.idle.latency.p50, 300);
  const a429 = r.flood.a.tally['429'] ?? 0;
  const worst = Math.max(0, ...r.bombs.bombs.map((x) => x.rss_growth_mib['total'] ?? 0));
  const uploads: Tally = {};
  for (const x of r.bombs.bombs) uploads[String(x.upload_status)] = (uploads[String(x.upload_status)] ?? 0) + 1;
  const unanswered = [r.idle.tally, r.flood.b.tally, r.bombs.b.tally, r.flood.a.tally, r.bombs.a_polls].reduce(
    (n, t) => n + failures(t),
    r.bombs.bombs.filter((x) => x.upload_status >= 500 || x.upload_status === 0).length,
  );
  return [
    {
      target: "B's p50 during the flood ≤ max(4 × idle p50, 300 ms)",
      measured: `${fmt(r.flood.b.latency.p50)} ms, limit ${fmt(limit)} ms (${(r.flood.b.latency.p50 / r.idle.latency.p50).toFixed(1)} × idle)`,
      pass: r.flood.b.latency.n > 0 && r.flood.b.latency.p50 <= limit,
    },
    {
      target: 'A answered 429 beyond its limits',
      measured: `${a429} of ${r.flood.a.requests} answers 429 (${r.flood.a.with_retry_after} with Retry-After, ${r.flood.a.with_ratelimit_headers} with RateLimit and RateLimit-Policy)`,
      pass: a429 > 0,
    },
    {
      target: `server RSS growth during a ${args['bomb-mib']} MiB bomb < ${RSS_LIMIT_MIB} MiB`,
      measured: `${Math.round(worst)} MiB at the peak${r.bombs.server_running_after ? '' : ', and the server died'}`,
      pass: worst < RSS_LIMIT_MIB && r.bombs.server_running_after,
    },
    {
      target: 'no 5xx (nor unanswered request) to anyone',
      measured: `${unanswered}`,
      pass: unanswered === 0,
    },
  ];
}

const tallyText = (t: Tally) =>
  Object.entries(t)
    .map(([k, v]) => `${v} × ${k}`)
    .join(', ') || '-';

function print(r: ModeResult) {
  const ratio = (m: Measured) => (m.latency.p50 / r.idle.latency.p50).toFixed(1);
  log(`\n### ${r.mode}: tenant B's semantic search (1 client, ${r.nodes} nodes; ms, client side through HTTP)\n`);
  log('| phase | B answers | B p50 | B p95 | B p50 / idle | A |');
  log('|---|---|---|---|---|---|');
  log(`| idle | ${tallyText(r.idle.tally)} | ${fmt(r.idle.latency.p50)} | ${fmt(r.idle.latency.p95)} | 1.0 | - |`);
  const f = r.flood.a;
  log(
    `| flood: A ${f.clients} clients | ${tallyText(r.flood.b.tally)} | ${fmt(r.flood.b.latency.p50)} | ${fmt(r.flood.b.latency.p95)} | ${ratio(r.flood.b)} | ` +
      `${f.requests} requests (${f.rps.toFixed(1)}/s): ${tallyText(f.tally)} |`,
  );
  log(
    `| bombs: A uploads ${r.bombs.bombs.map((x) => x.kind).join(', ')} | ${tallyText(r.bombs.b.tally)} | ${fmt(r.bombs.b.latency.p50)} | ${fmt(r.bombs.b.latency.p95)} | ${ratio(r.bombs.b)} | ` +
      `uploads ${r.bombs.bombs.map((x) => x.upload_status).join(', ')} |`,
  );
  const groups = Object.keys(r.bombs.rss_start_mib).filter((g) => g !== 'total' || r.mode === 'distributed');
  log(
    `\n| bomb (${args['bomb-mib']} MiB inflated) | upload | capture | seconds | ${groups.map((g) => `RSS growth ${g} MiB`).join(' | ')} |`,
  );
  log(`|---|---|---|---|${groups.map(() => '---|').join('')}`);
  for (const x of r.bombs.bombs)
    log(
      `| ${x.kind} (${(x.bytes / 1024).toFixed(0)} KiB) | ${x.upload_status} | ${x.capture_status}${x.capture_error ? `: ${x.capture_error.slice(0, 120)}` : ''} | ${x.seconds.toFixed(1)} | ` +
        `${groups.map((g) => Math.round(x.rss_growth_mib[g] ?? 0)).join(' | ')} |`,
    );
  const mib = (m: Record<string, number>) => groups.map((g) => `${g} ${Math.round(m[g]!)}`).join(', ');
  log(`RSS (MiB) at the phase's start: ${mib(r.bombs.rss_start_mib)}`);
  for (const x of r.bombs.bombs) log(`RSS (MiB) when the ${x.kind} bomb was uploaded: ${mib(x.rss_before_mib)}`);
  log('\ntargets:');
  for (const t of r.targets) log(`  ${t.pass ? 'PASS' : 'FAIL'}  ${t.target}: ${t.measured}`);
  const load = Object.entries(r.load_average).map(([k, v]) => `${k} ${v.toFixed(1)}`);
  log(`(${r.mode} took ${(r.seconds / 60).toFixed(1)} min; load average at each phase's start: ${load.join(', ')})`);
}

useDefaultLimits(log);
const modes = (args.mode === 'both' ? ['embedded', 'distributed'] : [args.mode]) as Array<'embedded' | 'distributed'>;
const results: ModeResult[] = [];
mkdirSync(path.join(ROOT, 'bench-results'), { recursive: true });
for (const mode of modes) {
  const r = mode === 'distributed' ? await withDistributedLock(() => runMode(mode), log) : await runMode(mode);
  writeFileSync(path.join(ROOT, `bench-results/noisy-${mode}.json`), JSON.stringify(r, null, 2));
  print(r);
  results.push(r);
}
const failed = results.flatMap((r) => r.targets.filter((t) => !t.pass).map((t) => `${r.mode}: ${t.target}`));
log(failed.length ? `\n${failed.length} target(s) not met` : '\nall targets met');
process.exit(args.strict && failed.length > 0 ? 1 : 0);
