/**
 * npm run bench:webhooks [-- --mode=embedded|distributed --events=1000 --clients=8 --paced=50
 *   --outage-seconds=300 --outage-events=1000 --outage=503|refused --shared-infra]
 *
 * Signed outbound webhooks (services/captures/src/webhooks) end to end, through the public API,
 * on a server the bench starts itself with WEBHOOK_ALLOWLIST=127.0.0.1 (embedded: `npm start`'s
 * entry on a fresh DATA_DIR and a free port; distributed: the seven processes of
 * scripts/distributed/cluster.ts on a fresh database of scripts/infra servers of the bench's own
 * (/tmp/kg-infra-bench-webhooks, ports 58xxx; `--shared-infra`: the default /tmp/kg-infra ones),
 * starting only those that are not running and stopping only those, by pid, holding
 * /tmp/kg-distributed.lock). A
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
import { loadPhase, outagePhase, pacedPhase, pendingZero, seconds, type Attempt, type Plan } from './phases';
import { startReceiver, type ReceiverState } from './receiver';
import { retryDelays } from './schedule';
import { apiKeyTenant, startDistributedTarget, startEmbeddedTarget, type Target } from './servers';
import { call, deliveredTracker, directPosts, makeNodes } from './traffic';

const { values: args } = parseArgs({
  options: {
    mode: { type: 'string', default: 'embedded' },
    events: { type: 'string', default: '1000' },
    clients: { type: 'string', default: '8' },
    paced: { type: 'string', default: '50' },
    'outage-seconds': { type: 'string', default: '300' },
    'outage-events': { type: 'string', default: '1000' },
    outage: { type: 'string', default: '503' },
    'shared-infra': { type: 'boolean', default: false },
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
const PLAN: Plan = {
  events: EVENTS,
  clients: CLIENTS,
  outageMs: OUTAGE_MS,
  outageEvents: OUTAGE_EVENTS,
  outage: OUTAGE,
  delays: retryDelays(SERVER_ENV['WEBHOOK_RETRY_DELAYS_MS']),
  log,
};

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
    MODE === 'embedded'
      ? await startEmbeddedTarget(SERVER_ENV)
      : await startDistributedTarget(SERVER_ENV, log, { sharedInfra: args['shared-infra'] });
  // Ctrl-C or SIGTERM: stop what the bench started (the infra servers run in sessions of their own).
  let stopping: Promise<void> | null = null;
  const stop = () => (stopping ??= target.stop().then(() => receiver.close()));
  for (const signal of ['SIGINT', 'SIGTERM'] as const)
    process.once(signal, () => {
      log(`${signal}: stopping what the bench started…`);
      void stop().finally(() => process.exit(130));
    });
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

    // Warm-up (untimed): the first deliveries open the paths and compile the queries; in the
    // distributed mode the Kafka consumer groups may still be joining after the services are ready.
    const warm = deliveredTracker(receiver);
    const warmNodes = await makeNodes(t, 'warm-up', 20, 4);
    const warmed = await warm.waitFor(
      warmNodes.made.map((m) => m.nodeId),
      120_000,
      log,
    );
    if (!warmed) log('  (not every warm-up node was delivered within 120 s)');
    await pacedPhase(t, receiver, 10, log);
    await pendingZero(t, hook.id, 30_000);

    load['paced'] = loadavg()[0]!;
    log(`paced: ${PACED} nodes one at a time, each waiting for its delivery…`);
    const paced = await pacedPhase(t, receiver, PACED, log);
    log(`  commit → receipt p50 ${fmt(paced.latency_ms.p50)} ms, p95 ${fmt(paced.latency_ms.p95)} ms`);

    load['load'] = loadavg()[0]!;
    log(`load: ${EVENTS} nodes from ${CLIENTS} clients…`);
    const loaded = await loadPhase(t, receiver, PLAN, hook.id, target.processes());
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
    const outage = await outagePhase(t, receiver, hook.id, PLAN);
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
    await stop();
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
  const b = l.backlog_at_last_201;
  if (b)
    log(
      `backlog at the last 201 (${b.s} s): ${b.made} made, ${b.delivered} delivered, ${b.pending} queued for the dispatcher, ` +
        `${b.made - b.delivered - b.pending} upstream of it (outbox, bus, fan-out); most queued ${l.max_pending}`,
    );
  log(
    `CPU from the first POST to the last delivery (share of one core): ${Object.entries(l.cpu_share)
      .map(([k, v]) => `${k} ${v.toFixed(2)}`)
      .join(', ')}`,
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
  const q = o.delivered_after_recovery_s;
  log(
    `  after the recovery: first delivery ${o.first_delivery_after_recovery_s} s (${o.delivered_within_60_s} within 60 s), all ${o.delivered} delivered after ${o.drain_s} s ` +
      `(p5 ${q.p5}, p25 ${q.p25}, p50 ${q.p50}, p75 ${q.p75}, p95 ${q.p95} s); ` +
      `drain rate ${o.drain_rate_per_s.toFixed(1)} deliveries/s first → last, ${o.drain_rate_p5_p95_per_s.toFixed(1)}/s p5 → p95 ` +
      `(÷ the load phase's ${l.deliveries_per_s.toFixed(1)}/s = ${(o.drain_rate_p5_p95_per_s / l.deliveries_per_s).toFixed(2)}), ` +
      `${o.drain_rate_from_recovery_per_s.toFixed(1)}/s from the recovery`,
  );
  const s = o.schedule;
  const onAttempt = Object.entries(s.attempt_after_recovery)
    .map(([k, n]) => `${n} on attempt ${k}`)
    .join(', ');
  log(
    `  the schedule implies (attempts taken as instantaneous): ${onAttempt}, nominally ${s.nominal_s.first.toFixed(0)}–${s.nominal_s.last.toFixed(0)} s after the recovery ` +
      `(with ±10 % jitter per delay: first between ${s.earliest_s.first.toFixed(0)} and ${s.latest_s.first.toFixed(0)} s, last by ${s.latest_s.last.toFixed(0)} s); ` +
      `until then the receiver, although up, waits for the next scheduled attempt`,
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
