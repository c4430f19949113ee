/**
 * npm run bench:import [-- --mode=embedded|distributed --bookmarks=5000 --hosts=50 --folders=25
 *   --quiet-seconds=30 --shared-infra]
 *
 * A bookmark import (POST /imports, services/captures/src/imports) end to end through the public
 * API, on a server the bench starts itself (embedded: `npm start`'s entry on a fresh DATA_DIR;
 * distributed: the seven processes of scripts/distributed/cluster.ts on the bench's own
 * scripts/infra servers, as bench:webhooks), with FETCH_ALLOWLIST=127.0.0.0/8 so the pipeline may
 * fetch the bench's page server. The file is a Netscape export of `bookmarks` bookmarks in
 * `folders` folders over `hosts` loopback hosts (every 100th a duplicate).
 *   quiet    the tenant's own `GET /nodes` (5 a second, one at a time) for `quiet-seconds`, on a
 *            tenant holding 200 nodes: the baseline.
 *   import   the file uploaded; the same probe runs until every capture is processed (or failed):
 *            time to the import's end (every capture made) and to the last capture processed,
 *            captures/s, and `GET /nodes` p50/p95 meanwhile.
 *   after    the probe alone again, on the tenant now holding the imported nodes: the quiet
 *            baseline at the same size.
 * Checks: captures made and duplicates counted as the file implies, none failed, and no host of
 * the page server saw more requests at once than FETCH_MAX_PER_HOST.
 * Prints the figures with the ratios busy ÷ quiet, and writes bench-results/import-<mode>.json.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { fmt, type Summary } from '../graph/stats';
import { withDistributedLock } from '../noisy/servers';
import { ROOT } from '../search/servers';
import { apiKeyTenant, startDistributedTarget, startEmbeddedTarget, type Target } from '../webhooks/servers';
import { call, makeNodes, sleep, type Tenant } from '../webhooks/traffic';
import { writeBookmarkFile } from './bookmarks';
import { startPageServer } from './pages';
import { probeFor, startProbe } from './probe';

const { values: args } = parseArgs({
  options: {
    mode: { type: 'string', default: 'embedded' },
    bookmarks: { type: 'string', default: '5000' },
    hosts: { type: 'string', default: '50' },
    folders: { type: 'string', default: '25' },
    'quiet-seconds': { type: 'string', default: '30' },
    'shared-infra': { type: 'boolean', default: false },
  },
});
const MODE = args.mode === 'distributed' ? 'distributed' : 'embedded';
if (args.mode !== MODE) throw new Error(`--mode: embedded or distributed, not ${args.mode}`);
const BOOKMARKS = Number(args.bookmarks);
const HOSTS = Number(args.hosts);
const FOLDERS = Number(args.folders);
const QUIET_MS = 1000 * Number(args['quiet-seconds']);
if (!(HOSTS >= 1 && HOSTS <= 254)) throw new Error('--hosts: 1 to 254 (127.0.0.1 … 127.0.0.254)');
const log = (s: string) => console.log(s);

/** What the server runs with: loopback fetches allowed; the rest the defaults (or this environment's IMPORT_* / FETCH_*). */
const SERVER_ENV: Record<string, string> = {
  LOG_LEVEL: 'warn',
  ...Object.fromEntries(
    Object.entries(process.env).filter(
      (e): e is [string, string] => /^(IMPORT|FETCH)_/.test(e[0]) && e[1] !== undefined,
    ),
  ),
  FETCH_ALLOWLIST: '127.0.0.0/8',
};
const MAX_PER_HOST = Number(SERVER_ENV['FETCH_MAX_PER_HOST'] ?? 2);

interface ImportState {
  id: string;
  status: string;
  counts: { seen: number; created: number; duplicates: number; skipped: number; invalid: number };
  failure: string | null;
}

const seconds = (ms: number) => Math.round(ms / 100) / 10;

/** How many of the tenant's captures are in each state (GET /captures?status=…, totals only). */
async function captureTotals(t: Tenant) {
  const total = async (status: string) =>
    (await call<{ total: number }>(t, 'GET', `/captures?status=${status}&per_page=1`)).total;
  const [pending, processing, processed, failed] = await Promise.all(
    ['pending', 'processing', 'processed', 'failed'].map(total),
  );
  return { pending: pending!, processing: processing!, processed: processed!, failed: failed! };
}

async function upload(t: Tenant, file: string): Promise<ImportState> {
  const form = new FormData();
  form.set('file', new Blob([readFileSync(file)], { type: 'text/html' }), 'bookmarks.html');
  const res = await fetch(`${t.api}/imports`, {
    method: 'POST',
    headers: { authorization: t.authorization },
    body: form,
  });
  const text = await res.text();
  if (res.status !== 202) throw new Error(`POST /imports: ${res.status} ${text.slice(0, 300)}`);
  return JSON.parse(text) as ImportState;
}

function machine() {
  const git = (a: string[]) => execFileSync('git', a, { cwd: ROOT, encoding: 'utf8' }).trim();
  return {
    cpus: `${cpus().length} × ${cpus()[0]?.model ?? '?'}`,
    memory_gib: Math.round(totalmem() / 2 ** 30),
    node: process.version,
    commit: git(['rev-parse', '--short', 'HEAD']),
    dirty_files: git(['status', '--porcelain']).split('\n').filter(Boolean).length,
  };
}

const row = (label: string, s: Summary & { errors: number }, quiet: Summary) =>
  `| ${label} | ${s.n} | ${fmt(s.p50)} | ${fmt(s.p95)} | ${fmt(s.p99)} | ${(s.p95 / quiet.p95).toFixed(2)} | ${s.errors} |`;

async function main() {
  const started = new Date();
  const t0 = performance.now();
  const pages = await startPageServer();
  const dir = mkdtempSync(path.join(tmpdir(), 'kg-bench-import-'));
  const file = path.join(dir, 'bookmarks.html');
  const expected = writeBookmarkFile(file, { count: BOOKMARKS, hosts: HOSTS, folders: FOLDERS, port: pages.port });
  log(
    `${MODE}: ${BOOKMARKS} bookmarks (${(statSync(file).size / 1024).toFixed(0)} KiB, ${FOLDERS} folders, ` +
      `${expected.duplicates} duplicates) over ${HOSTS} hosts of the page server on port ${pages.port}; starting the server…`,
  );
  const target: Target =
    MODE === 'embedded'
      ? await startEmbeddedTarget(SERVER_ENV)
      : await startDistributedTarget(SERVER_ENV, log, { sharedInfra: args['shared-infra'] });
  let stopping: Promise<void> | null = null;
  const stop = () => (stopping ??= target.stop().then(() => pages.close()));
  for (const signal of ['SIGINT', 'SIGTERM'] as const)
    process.once(signal, () => {
      log(`${signal}: stopping what the bench started…`);
      void stop().finally(() => process.exit(130));
    });
  try {
    log(`${MODE}: up after ${seconds(performance.now() - t0)} s (logs: ${target.logs})`);
    const t = await apiKeyTenant(target, `import-${MODE}`);
    const seeded = await makeNodes(t, 'seed', 200, 4);
    if (seeded.failed) throw new Error(`${seeded.failed} seed nodes failed`);

    const load: Record<string, number> = { quiet: loadavg()[0]! };
    log(`quiet: GET /nodes for ${QUIET_MS / 1000} s on 200 nodes…`);
    const quiet = await probeFor(t, QUIET_MS);
    log(`  p50 ${fmt(quiet.p50)} ms, p95 ${fmt(quiet.p95)} ms (${quiet.n} requests)`);

    load['import'] = loadavg()[0]!;
    const probe = startProbe(t);
    const u0 = performance.now();
    const imp = await upload(t, file);
    const uploadedMs = performance.now() - u0;
    log(`import ${imp.id}: uploaded in ${fmt(uploadedMs)} ms; following it…`);
    const timeline: Array<{ s: number; made: number; processed: number; failed: number; waiting: number }> = [];
    let madeAt: number | null = null;
    let state = imp;
    let totals = await captureTotals(t);
    const deadline = u0 + Math.max(1_800_000, BOOKMARKS * 600);
    for (let i = 0; ; i++) {
      await sleep(2000);
      state = await call<ImportState>(t, 'GET', `/imports/${imp.id}`);
      totals = await captureTotals(t);
      const s = seconds(performance.now() - u0);
      if (madeAt === null && state.status !== 'queued' && state.status !== 'running') madeAt = performance.now();
      const waiting = totals.pending + totals.processing;
      if (i % 5 === 0)
        timeline.push({ s, made: state.counts.created, processed: totals.processed, failed: totals.failed, waiting });
      if (i % 15 === 0)
        log(
          `  +${s} s: ${state.status}, ${state.counts.created} made, ${totals.processed} processed, ` +
            `${totals.failed} failed, ${waiting} waiting`,
        );
      if (madeAt !== null && waiting === 0) break;
      if (performance.now() > deadline) throw new Error(`not done after ${seconds(deadline - u0)} s`);
    }
    const doneMs = performance.now() - u0;
    const during = await probe.stop();
    load['after'] = loadavg()[0]!;
    log(`after: GET /nodes for ${QUIET_MS / 1000} s holding the imported nodes…`);
    const after = await probeFor(t, QUIET_MS);

    const made = state.counts.created;
    const processed = totals.processed;
    const result = {
      bench: 'import',
      mode: MODE,
      started: started.toISOString(),
      machine: machine(),
      load_average: load,
      server_env: SERVER_ENV,
      file: { bookmarks: BOOKMARKS, hosts: HOSTS, folders: FOLDERS, bytes: statSync(file).size },
      import: { id: imp.id, status: state.status, counts: state.counts, failure: state.failure },
      upload_ms: uploadedMs,
      import_done_s: seconds((madeAt ?? performance.now()) - u0),
      all_processed_s: seconds(doneMs),
      captures_per_s: processed / (doneMs / 1000),
      processed,
      failed: totals.failed,
      get_nodes: { quiet, during, after },
      page_server: {
        requests: [...pages.hits.values()].reduce((a, b) => a + b, 0),
        hosts: pages.hits.size,
        most_at_once_on_one_host: Math.max(0, ...pages.peakPerHost.values()),
      },
      timeline,
      checks: {
        made_as_expected: made === expected.expectedCaptures,
        duplicates_as_expected: state.counts.duplicates === expected.duplicates,
        none_failed: totals.failed === 0,
        per_host_limit_held: Math.max(0, ...pages.peakPerHost.values()) <= MAX_PER_HOST,
      },
    };
    print(result, quiet);
    mkdirSync(path.join(ROOT, 'bench-results'), { recursive: true });
    const out = path.join(ROOT, 'bench-results', `import-${MODE}.json`);
    writeFileSync(out, JSON.stringify(result, null, 2));
    log(`\nwritten: ${path.relative(ROOT, out)}`);
    if (!Object.values(result.checks).every(Boolean)) process.exitCode = 1;
  } finally {
    await stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

function print(
  r: {
    mode: string;
    import_done_s: number;
    all_processed_s: number;
    captures_per_s: number;
    processed: number;
    failed: number;
    import: { counts: ImportState['counts'] };
    get_nodes: Record<'quiet' | 'during' | 'after', Summary & { errors: number }>;
    page_server: { requests: number; hosts: number; most_at_once_on_one_host: number };
    checks: Record<string, boolean>;
  },
  quiet: Summary,
) {
  const c = r.import.counts;
  log(`\n## bench:import, ${r.mode}\n`);
  log(
    `${c.seen} bookmarks read: ${c.created} captures made, ${c.duplicates} duplicates, ${c.skipped} skipped, ${c.invalid} invalid; ` +
      `every capture made after ${r.import_done_s} s, the last processed after ${r.all_processed_s} s ` +
      `(${r.processed} processed, ${r.failed} failed: ${r.captures_per_s.toFixed(1)} captures/s)`,
  );
  log(
    `page server: ${r.page_server.requests} requests over ${r.page_server.hosts} hosts, ` +
      `at most ${r.page_server.most_at_once_on_one_host} at once on one host`,
  );
  log('\n| GET /nodes | n | p50 ms | p95 ms | p99 ms | p95 ÷ quiet p95 | errors |');
  log('|---|---|---|---|---|---|---|');
  log(row('quiet, 200 nodes', r.get_nodes.quiet, quiet));
  log(row('during the import', r.get_nodes.during, quiet));
  log(row(`after, ${r.processed + 200} nodes`, r.get_nodes.after, quiet));
  log(
    `\nduring ÷ after (same size): p95 ${(r.get_nodes.during.p95 / r.get_nodes.after.p95).toFixed(2)}, ` +
      `p50 ${(r.get_nodes.during.p50 / r.get_nodes.after.p50).toFixed(2)}`,
  );
  log(
    `checks: ${Object.entries(r.checks)
      .map(([k, v]) => `${k} ${v ? 'ok' : 'FAILED'}`)
      .join(', ')}`,
  );
}

if (MODE === 'distributed') await withDistributedLock(main, log);
else await main();
