/**
 * npm run bench:webhooks [-- --mode=embedded|distributed --events=1000 --clients=8 --paced=50
 *   --outage-seconds=300 --outage-events=1000 --outage=503|refused]
 *
 * Signed outbound webhooks (services/captures/src/webhooks) end to end, through the public API,
 * on a server the bench starts itself with WEBHOOK_ALLOWLIST=127.0.0.1 (embedded: `npm start`'s
 * entry on a fresh DATA_DIR and a free port; distributed: the seven processes of
 * scripts/distributed/cluster.ts on a fresh database, starting only the scripts/infra servers
 * that are not running and stopping only those, by pid, holding /tmp/kg-distributed.lock). A
 * receiver on 127.0.0.1 verifies every request's signature with `standardwebhooks`; one
 * endpoint subscribes to node.created, and the events are nodes made with POST /nodes. The
 * commit time of an event is the moment the API's 201 answer arrived at the bench.
 *   paced    `paced` nodes one at a time, each waiting for its delivery: the latency floor.
 *   load     `events` nodes from `clients` concurrent clients: latency p50/p95/p99 commit →
 *            receipt, deliveries/s against nodes made/s, every webhook-id checked (duplicates
 *            counted apart: delivery is at least once).
 *   outage   the receiver down (`503` to everything, or `refused`: not listening) for
 *            `outage-seconds`; `outage-events` nodes made at its start; then the receiver back:
 *            time to the first delivery after recovery, the drain time and rate, beside what
 *            the retry schedule (5 s, 30 s, 2 min, 10 min… ±10 %) implies.
 * Prints the figures, with ratios to the baselines measured in the same run (the paced floor,
 * the receiver's own round trip, the rate nodes were made), and writes
 * bench-results/webhooks-<mode>.json.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { fmt, summarize, type Summary } from '../graph/stats';
import { withDistributedLock } from '../noisy/servers';
import { ROOT } from '../search/servers';
import { startReceiver, type Receiver, type ReceiverState } from './receiver';
import { describeDelays, expectedDelivery, retryDelays, type Expected } from './schedule';
import { apiKeyTenant, startDistributedTarget, startEmbeddedTarget, type Target } from './servers';
import { call, deliveredTracker, directPosts, makeNode, makeNodes, sleep, tally, type Tenant } from './traffic';

const { values: args } = parseArgs({
  options: {
    mode: { type: 'string', default: 'embedded' },
    events: { type: 'string', default: '1000' },
    clients: { type: 'string', default: '8' },
    paced: { type: 'string', default: '50' },
    'outage-seconds': { type: 'string', default: '300' },
    'outage-events': { type: 'string', default: '1000' },
    outage: { type: 'string', default: '503' },
  },
});
const MODE = args.mode === 'distributed' ? 'distributed' : 'embedded';
if (args.mode !== MODE) throw new Error(`--mode: embedded or distributed, not ${args.mode}`);
const EVENTS = Number(args.events);
const CLIENTS = Number(args.clients);
const PACED = Number(args.paced);
const OUTAGE_MS = 1000 * Number(args['outage-seconds']);
const OUTAGE_EVENTS = Number(args['outage-events']);
const OUTAGE = args.outage as Exclude<ReceiverState, 'up'>;
if (OUTAGE !== '503' && OUTAGE !== 'refused') throw new Error(`--outage: 503 or refused, not ${args.outage}`);
const log = (s: string) => console.log(s);

/** What the server runs with: the receiver's loopback address allowed; the rest the defaults (or this environment's WEBHOOK_*). */
const SERVER_ENV: Record<string, string> = {
  LOG_LEVEL: 'warn',
  ...Object.fromEntries(
    Object.entries(process.env).filter((e): e is [string, string] => e[0].startsWith('WEBHOOK_') && e[1] !== undefined),
  ),
  WEBHOOK_ALLOWLIST: '127.0.0.1',
};
const DELAYS = retryDelays(SERVER_ENV['WEBHOOK_RETRY_DELAYS_MS']);

interface WebhookState {
  pending_deliveries: number;
  enabled: boolean;
  failing_since: string | null;
}
interface Attempt {
  attempt: number;
  outcome: string;
  latency_ms: number;
  attempted_at: string;
  next_attempt_at: string | null;
  error: string | null;
}

const seconds = (ms: number) => Math.round(ms) / 1000;

async function pendingZero(t: Tenant, id: string, timeoutMs: number): Promise<number> {
  const end = performance.now() + timeoutMs;
  for (;;) {
    const w = await call<WebhookState>(t, 'GET', `/webhooks/${id}`);
    if (w.pending_deliveries === 0 || performance.now() > end) return w.pending_deliveries;
    await sleep(500);
  }
}

/** The paced phase: one node at a time, each waiting for its delivery (no queue anywhere). */
async function pacedPhase(t: Tenant, receiver: Receiver, count: number) {
  const tracker = deliveredTracker(receiver);
  const latencies: number[] = [];
  let missing = 0;
  for (let i = 0; i < count; i++) {
    const m = await makeNode(t, 'paced', i);
    if (!(await tracker.waitFor([m.nodeId], 10_000, log))) {
      missing++;
      continue;
    }
    latencies.push(tracker.first.get(m.nodeId)!.at - m.committed);
    await sleep(20);
  }
  return { latency_ms: summarize(latencies), min_ms: Math.min(...latencies), missing };
}

async function loadPhase(t: Tenant, receiver: Receiver) {
  const tracker = deliveredTracker(receiver);
  const from = receiver.receipts.length;
  const t0 = performance.now();
  const { made, failed } = await makeNodes(t, 'load', EVENTS, CLIENTS);
  const madeAt = performance.now();
  log(`  ${made.length} nodes made in ${seconds(madeAt - t0)} s (${failed} POSTs failed); waiting for the deliveries…`);
  const ids = made.map((m) => m.nodeId);
  const complete = await tracker.waitFor(ids, Math.max(120_000, EVENTS * 300), log);
  const lat = made.filter((m) => tracker.first.has(m.nodeId)).map((m) => tracker.first.get(m.nodeId)!.at - m.committed);
  const arrivals = made
    .map((m) => tracker.first.get(m.nodeId)?.at)
    .filter((x): x is number => x !== undefined)
    .sort((a, b) => a - b);
  const last = arrivals.at(-1) ?? t0;
  await sleep(2000); // a late duplicate still counts
  return {
    complete,
    nodes_made: made.length,
    posts_failed: failed,
    made_seconds: seconds(madeAt - t0),
    nodes_per_s: made.length / ((madeAt - t0) / 1000),
    post_latency_ms: summarize(made.map((m) => m.committed - m.sent)),
    latency_ms: summarize(lat),
    min_ms: Math.min(...lat),
    /** First POST to last delivery. */
    deliveries_per_s: arrivals.length / ((last - t0) / 1000),
    /** First delivery to last delivery. */
    deliveries_per_s_between_first_and_last: (arrivals.length - 1) / ((last - arrivals[0]!) / 1000),
    last_delivery_after_last_201_ms: last - Math.max(...made.map((m) => m.committed)),
    checks: tally(receiver.receipts.slice(from), new Set(ids)),
  };
}

async function outagePhase(t: Tenant, receiver: Receiver, webhookId: string) {
  const tracker = deliveredTracker(receiver);
  const from = receiver.receipts.length;
  const pending: Array<{ s: number; pending: number }> = [];
  let polling = true;
  const outageStart = performance.now();
  await receiver.setState(OUTAGE);
  log(
    `  receiver ${OUTAGE === '503' ? 'answers 503' : 'refuses connections'} for ${seconds(OUTAGE_MS)} s; ${OUTAGE_EVENTS} nodes now…`,
  );
  const poller = (async () => {
    while (polling) {
      const w = await call<WebhookState>(t, 'GET', `/webhooks/${webhookId}`).catch(() => null);
      if (w) pending.push({ s: seconds(performance.now() - outageStart), pending: w.pending_deliveries });
      await sleep(5000);
    }
  })();
  const { made, failed } = await makeNodes(t, 'outage', OUTAGE_EVENTS, CLIENTS);
  const madeEnd = performance.now();
  log(`  ${made.length} nodes made in ${seconds(madeEnd - outageStart)} s (${failed} POSTs failed)`);
  if (madeEnd - outageStart > OUTAGE_MS)
    log('  (the nodes took longer to make than the outage lasted: some were made after it)');
  await sleep(Math.max(0, outageStart + OUTAGE_MS - 2000 - performance.now()));
  const attemptsBefore = await call<{ data: Attempt[] }>(t, 'GET', `/webhooks/${webhookId}/attempts`);
  const stateBefore = await call<WebhookState>(t, 'GET', `/webhooks/${webhookId}`);
  await sleep(Math.max(0, outageStart + OUTAGE_MS - performance.now()));
  const recovered = performance.now();
  await receiver.setState('up');
  const duringOutage = receiver.receipts.slice(from);
  log(
    `  receiver back after ${seconds(recovered - outageStart)} s (${stateBefore.pending_deliveries} pending, ` +
      `${duringOutage.length} attempts reached it meanwhile); waiting for the drain…`,
  );

  const created = made.map((m) => m.committed - outageStart);
  const expected = created.map((c) => expectedDelivery(DELAYS, c, recovered - outageStart));
  const latestExpected = Math.max(...expected.map((e) => e.latest));
  const ids = made.map((m) => m.nodeId);
  const complete = await tracker.waitFor(ids, latestExpected + 180_000, log, 30_000);
  const arrivals = made
    .map((m) => tracker.first.get(m.nodeId)?.at)
    .filter((x): x is number => x !== undefined)
    .sort((a, b) => a - b);
  await sleep(2000);
  polling = false;
  await poller;
  const firstAfter = (arrivals[0] ?? NaN) - recovered;
  const lastAfter = (arrivals.at(-1) ?? NaN) - recovered;
  // Attempts that reached the receiver while it was down, per webhook-id (503 only: refused ones never arrive).
  const perId = new Map<string, number>();
  for (const r of duringOutage) perId.set(r.webhookId, (perId.get(r.webhookId) ?? 0) + 1);
  const attemptsPerEvent: Record<string, number> = {};
  for (const n of perId.values()) attemptsPerEvent[n] = (attemptsPerEvent[n] ?? 0) + 1;
  const logged: Record<string, number> = {};
  for (const a of attemptsBefore.data)
    logged[`attempt ${a.attempt} ${a.outcome}`] = (logged[`attempt ${a.attempt} ${a.outcome}`] ?? 0) + 1;
  const summary = (pick: (e: Expected) => number) => ({
    first: Math.min(...expected.map(pick)) / 1000,
    last: Math.max(...expected.map(pick)) / 1000,
  });
  return {
    complete,
    kind: OUTAGE,
    outage_s: seconds(recovered - outageStart),
    nodes_made: made.length,
    posts_failed: failed,
    made_within_s: seconds(madeEnd - outageStart),
    pending_before_recovery: stateBefore.pending_deliveries,
    pending_max: Math.max(0, ...pending.map((p) => p.pending)),
    pending_samples: pending,
    failing_since_set: stateBefore.failing_since !== null,
    attempts_during_outage: duringOutage.length,
    attempts_during_outage_verified: duringOutage.filter((r) => r.verified).length,
    /** How many events got 1, 2, 3… attempts while the receiver was down (503: counted by the receiver). */
    attempts_per_event_during_outage: attemptsPerEvent,
    /** GET /webhooks/:id/attempts 2 s before the recovery (the last 100), by attempt number and outcome. */
    logged_attempts_before_recovery: logged,
    delivered: arrivals.length,
    first_delivery_after_recovery_s: seconds(firstAfter),
    drain_s: seconds(lastAfter),
    /** Deliveries per second between the first and the last delivery after the recovery. */
    drain_rate_per_s: (arrivals.length - 1) / ((lastAfter - firstAfter) / 1000),
    /** Deliveries per second from the recovery to the last delivery. */
    drain_rate_from_recovery_per_s: arrivals.length / (lastAfter / 1000),
    /** Quartiles of the delivery times after the recovery (s). */
    delivered_after_recovery_s: {
      p25: seconds((arrivals[Math.floor(arrivals.length / 4)] ?? NaN) - recovered),
      p50: seconds((arrivals[Math.floor(arrivals.length / 2)] ?? NaN) - recovered),
      p75: seconds((arrivals[Math.floor((3 * arrivals.length) / 4)] ?? NaN) - recovered),
    },
    schedule: {
      delays: describeDelays(DELAYS),
      attempt_after_recovery: [...new Set(expected.map((e) => e.attempt))].sort(),
      nominal_s: summary((e) => e.nominal),
      earliest_s: summary((e) => e.earliest),
      latest_s: summary((e) => e.latest),
    },
    checks: tally(receiver.receipts.slice(from), new Set(ids)),
  };
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

const row = (label: string, s: Summary, extra = '') =>
  `| ${label} | ${s.n} | ${fmt(s.p50)} | ${fmt(s.p95)} | ${fmt(s.p99)} | ${fmt(s.mean)} |${extra}`;

async function main() {
  const started = new Date();
  const t0 = performance.now();
  const receiver = await startReceiver();
  log(`${MODE}: receiver on ${receiver.url}; starting the server (WEBHOOK_ALLOWLIST=127.0.0.1)…`);
  const load: Record<string, number> = {};
  const target: Target =
    MODE === 'embedded' ? await startEmbeddedTarget(SERVER_ENV) : await startDistributedTarget(SERVER_ENV, log);
  try {
    log(`${MODE}: up after ${seconds(performance.now() - t0)} s (logs: ${target.logs})`);
    const t = await apiKeyTenant(target, MODE);
    const hook = await call<{ id: string; secret: string }>(
      t,
      'POST',
      '/webhooks',
      { url: receiver.url, event_types: ['node.created'], description: 'bench:webhooks' },
      201,
    );
    receiver.setSecret(hook.secret);

    const direct = summarize(await directPosts(receiver, hook.secret, 200));
    receiver.receipts.splice(0);
    log(
      `baseline: a signed POST from the bench straight to the receiver, new connection each: p50 ${fmt(direct.p50)} ms`,
    );

    // Warm-up (untimed): the first deliveries open the paths, compile the queries.
    const warm = deliveredTracker(receiver);
    const warmNodes = await makeNodes(t, 'warm-up', 20, 4);
    await warm.waitFor(
      warmNodes.made.map((m) => m.nodeId),
      60_000,
      log,
    );
    await pendingZero(t, hook.id, 30_000);

    load['paced'] = loadavg()[0]!;
    log(`paced: ${PACED} nodes one at a time, each waiting for its delivery…`);
    const paced = await pacedPhase(t, receiver, PACED);
    log(`  commit → receipt p50 ${fmt(paced.latency_ms.p50)} ms, p95 ${fmt(paced.latency_ms.p95)} ms`);

    load['load'] = loadavg()[0]!;
    log(`load: ${EVENTS} nodes from ${CLIENTS} clients…`);
    const loaded = await loadPhase(t, receiver);
    const attempts = await call<{ data: Attempt[] }>(t, 'GET', `/webhooks/${hook.id}/attempts`);
    const serverSide = summarize(attempts.data.filter((a) => a.outcome === 'succeeded').map((a) => a.latency_ms));
    log(
      `  commit → receipt p50 ${fmt(loaded.latency_ms.p50)} ms, p95 ${fmt(loaded.latency_ms.p95)} ms, p99 ${fmt(loaded.latency_ms.p99)} ms; ` +
        `${loaded.deliveries_per_s.toFixed(1)} deliveries/s`,
    );
    const left = await pendingZero(t, hook.id, 60_000);
    if (left) log(`  (${left} deliveries still pending after the load phase)`);

    load['outage'] = loadavg()[0]!;
    log(`outage: ${seconds(OUTAGE_MS)} s, ${OUTAGE_EVENTS} nodes…`);
    const outage = await outagePhase(t, receiver, hook.id);
    const stray = receiver.receipts.filter((r) => !r.nodeId || !r.verified).length;

    const result = {
      mode: MODE,
      at: started.toISOString(),
      command: `npm run bench:webhooks -- ${process.argv.slice(2).join(' ')}`.trim(),
      machine: machine(),
      load_average: load,
      server_env: SERVER_ENV,
      commit_time: "the moment the bench received POST /nodes' 201 answer (status line and headers)",
      receiver_direct_post_ms: direct,
      paced,
      load: { clients: CLIENTS, ...loaded, server_attempt_latency_ms_last_100: serverSide },
      outage,
      receipts_total: receiver.receipts.length,
      receipts_unverified_or_unknown: stray,
      seconds: seconds(performance.now() - t0),
    };
    mkdirSync(path.join(ROOT, 'bench-results'), { recursive: true });
    writeFileSync(path.join(ROOT, `bench-results/webhooks-${MODE}.json`), JSON.stringify(result, null, 2));
    print(result);
  } finally {
    await target.stop();
    await receiver.close();
  }
}

function print(r: {
  mode: string;
  at: string;
  machine: ReturnType<typeof machine>;
  load_average: Record<string, number>;
  receiver_direct_post_ms: Summary;
  paced: Awaited<ReturnType<typeof pacedPhase>>;
  load: Awaited<ReturnType<typeof loadPhase>> & { clients: number; server_attempt_latency_ms_last_100: Summary };
  outage: Awaited<ReturnType<typeof outagePhase>>;
  receipts_total: number;
  receipts_unverified_or_unknown: number;
  seconds: number;
}) {
  const { paced, load: l, outage: o } = r;
  log(`\n### Webhooks, ${r.mode} (${r.at}; ${r.machine.cpus}, ${r.machine.memory_gib} GiB; ${r.machine.commit})\n`);
  log("Commit time = the moment the bench received POST /nodes' 201; receipt = the receiver had read the body.\n");
  log('| ms | n | p50 | p95 | p99 | mean |');
  log('|---|---|---|---|---|---|');
  log(row('signed POST bench → receiver (last hop alone)', r.receiver_direct_post_ms));
  log(row('paced: commit → receipt, one at a time', paced.latency_ms));
  log(row(`load: POST /nodes (${l.clients} clients)`, l.post_latency_ms));
  log(row(`load: commit → receipt (${l.clients} clients)`, l.latency_ms));
  log(row("load: the dispatcher's POST, server side (last 100 attempts)", l.server_attempt_latency_ms_last_100));
  log('');
  log(
    `load: ${l.nodes_made} nodes in ${l.made_seconds} s = ${l.nodes_per_s.toFixed(1)} nodes/s; ` +
      `${l.deliveries_per_s.toFixed(1)} deliveries/s first POST → last delivery ` +
      `(${l.deliveries_per_s_between_first_and_last.toFixed(1)}/s first → last delivery); ` +
      `deliveries/s ÷ nodes/s = ${(l.deliveries_per_s / l.nodes_per_s).toFixed(2)}; last delivery ${fmt(l.last_delivery_after_last_201_ms)} ms after the last 201`,
  );
  log(
    `ratios: load p50 ÷ paced p50 = ${(l.latency_ms.p50 / paced.latency_ms.p50).toFixed(1)}, ` +
      `paced p50 ÷ last hop p50 = ${(paced.latency_ms.p50 / r.receiver_direct_post_ms.p50).toFixed(1)}; ` +
      `paced min ${fmt(paced.min_ms)} ms, load min ${fmt(l.min_ms)} ms`,
  );
  const c = l.checks;
  log(
    `load checks: ${c.requests} requests, ${c.verified} verified, ${c.failed_verification} failed verification; ` +
      `${c.distinct_webhook_ids_delivered} distinct webhook-ids for ${l.nodes_made} nodes, ${c.missing} missing, ` +
      `${c.duplicates} duplicates (at least once), ${c.nodes_with_several_webhook_ids} nodes under several webhook-ids, ${c.other_types} other types` +
      (l.complete ? '' : ' — NOT ALL DELIVERED before the deadline'),
  );
  log(
    `\noutage (${o.kind === '503' ? 'receiver answers 503' : 'connection refused'}, ${o.outage_s} s; retry delays ${o.schedule.delays}):`,
  );
  log(
    `  ${o.nodes_made} nodes made within ${o.made_within_s} s of its start; pending_deliveries ${o.pending_before_recovery} just before the recovery (max seen ${o.pending_max}); ` +
      `${o.attempts_during_outage} attempts reached the receiver meanwhile (${o.attempts_during_outage_verified} verified)` +
      (o.kind === '503' ? `, per event: ${JSON.stringify(o.attempts_per_event_during_outage)}` : ''),
  );
  log(`  attempt log 2 s before the recovery (last 100): ${JSON.stringify(o.logged_attempts_before_recovery)}`);
  log(
    `  after the recovery: first delivery ${o.first_delivery_after_recovery_s} s, all ${o.delivered} delivered after ${o.drain_s} s ` +
      `(quartiles ${o.delivered_after_recovery_s.p25} / ${o.delivered_after_recovery_s.p50} / ${o.delivered_after_recovery_s.p75} s); ` +
      `drain rate ${o.drain_rate_per_s.toFixed(1)} deliveries/s first → last (${o.drain_rate_from_recovery_per_s.toFixed(1)}/s from the recovery); ` +
      `÷ the load phase's ${l.deliveries_per_s.toFixed(1)}/s = ${(o.drain_rate_per_s / l.deliveries_per_s).toFixed(2)}`,
  );
  const s = o.schedule;
  log(
    `  the schedule implies: delivery on attempt ${s.attempt_after_recovery.join(' or ')}, nominally ${s.nominal_s.first.toFixed(0)}–${s.nominal_s.last.toFixed(0)} s after the recovery ` +
      `(with ±10 % jitter per delay: first between ${s.earliest_s.first.toFixed(0)} and ${s.latest_s.first.toFixed(0)} s, last by ${s.latest_s.last.toFixed(0)} s): ` +
      `the receiver is idle meanwhile, waiting for the next scheduled attempt`,
  );
  const oc = o.checks;
  log(
    `  checks: ${oc.requests} requests, ${oc.verified} verified, ${oc.failed_verification} failed verification; ` +
      `${oc.distinct_webhook_ids_delivered} distinct webhook-ids delivered for ${o.nodes_made} nodes, ${oc.missing} missing, ${oc.duplicates} duplicates, ` +
      `${oc.nodes_with_several_webhook_ids} nodes under several webhook-ids` +
      (o.complete ? '' : ' — NOT ALL DELIVERED before the deadline'),
  );
  log(
    `\nwhole run: ${r.receipts_total} requests received, ${r.receipts_unverified_or_unknown} unverified or not ours; ` +
      `${(r.seconds / 60).toFixed(1)} min; load average at each phase's start: ${Object.entries(r.load_average)
        .map(([k, v]) => `${k} ${v.toFixed(1)}`)
        .join(', ')}`,
  );
}

await (MODE === 'distributed' ? withDistributedLock(main, log) : main());
process.exit(0);
