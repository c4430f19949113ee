import { summarize } from '../graph/stats';
import { cpuMeter } from './cpu';
import type { Receiver, ReceiverState } from './receiver';
import { describeDelays, expectedDelivery, type Expected } from './schedule';
import { call, deliveredTracker, makeNode, makeNodes, sleep, tally, type Tenant } from './traffic';

type Log = (s: string) => void;

/** What the load and outage phases do (bench:webhooks' options). */
export interface Plan {
  events: number;
  clients: number;
  outageMs: number;
  outageEvents: number;
  outage: Exclude<ReceiverState, 'up'>;
  /** The retry delays the server runs with (ms). */
  delays: number[];
  log: Log;
}

interface WebhookState {
  pending_deliveries: number;
  enabled: boolean;
  failing_since: string | null;
}
export interface Attempt {
  attempt: number;
  outcome: string;
  latency_ms: number;
  attempted_at: string;
  next_attempt_at: string | null;
  error: string | null;
}

export const seconds = (ms: number) => Math.round(ms) / 1000;

export async function pendingZero(t: Tenant, id: string, timeoutMs: number): Promise<number> {
  const end = performance.now() + timeoutMs;
  for (;;) {
    const w = await call<WebhookState>(t, 'GET', `/webhooks/${id}`);
    if (w.pending_deliveries === 0 || performance.now() > end) return w.pending_deliveries;
    await sleep(500);
  }
}

/** The paced phase: one node at a time, each waiting for its delivery (no queue anywhere). */
export async function pacedPhase(t: Tenant, receiver: Receiver, count: number, log: Log) {
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
  return {
    latency_ms: summarize(latencies),
    min_ms: Math.min(...latencies),
    missing,
    samples_ms: latencies.map(Math.round),
  };
}

/**
 * The load phase. Where the backlog waits is read once a second from the deliveries table
 * (`pending_deliveries`): the rest of it (made, neither delivered nor queued) is upstream of the
 * dispatcher, in the outbox, the bus or the fan-out. The server's CPU (share of a core, per
 * process) tells whether a process is the limit.
 */
export async function loadPhase(
  t: Tenant,
  receiver: Receiver,
  plan: Plan,
  webhookId: string,
  processes: Record<string, number>,
) {
  const tracker = deliveredTracker(receiver);
  const from = receiver.receipts.length;
  const backlog: Array<{ s: number; made: number; delivered: number; pending: number }> = [];
  let done = 0;
  let polling = true;
  const t0 = performance.now();
  const cpu = cpuMeter(processes);
  const poller = (async () => {
    while (polling) {
      const w = await call<WebhookState>(t, 'GET', `/webhooks/${webhookId}`).catch(() => null);
      if (w)
        backlog.push({
          s: seconds(performance.now() - t0),
          made: done,
          delivered: tracker.first.size,
          pending: w.pending_deliveries,
        });
      await sleep(1000);
    }
  })();
  const { made, failed } = await makeNodes(t, 'load', plan.events, plan.clients, () => done++);
  const madeAt = performance.now();
  plan.log(
    `  ${made.length} nodes made in ${seconds(madeAt - t0)} s (${failed} POSTs failed); waiting for the deliveries…`,
  );
  const ids = made.map((m) => m.nodeId);
  const complete = await tracker.waitFor(ids, Math.max(120_000, plan.events * 300), plan.log);
  const cpuShare = cpu.stop();
  polling = false;
  await poller;
  // The sample nearest the last 201: how the backlog was split then.
  const atMade = backlog.reduce<(typeof backlog)[number] | undefined>(
    (best, b) => (!best || Math.abs(b.s * 1000 - (madeAt - t0)) < Math.abs(best.s * 1000 - (madeAt - t0)) ? b : best),
    undefined,
  );
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
    /** Made, delivered and queued (pending in the deliveries table) nearest the last 201; the rest was upstream. */
    backlog_at_last_201: atMade ?? null,
    max_pending: Math.max(0, ...backlog.map((b) => b.pending)),
    backlog_samples: backlog,
    /** CPU of each server process from the first POST to the last delivery, as a share of one core. */
    cpu_share: cpuShare,
    checks: tally(receiver.receipts.slice(from), new Set(ids)),
  };
}

export async function outagePhase(t: Tenant, receiver: Receiver, webhookId: string, plan: Plan) {
  const tracker = deliveredTracker(receiver);
  const from = receiver.receipts.length;
  const pending: Array<{ s: number; pending: number }> = [];
  let polling = true;
  const outageStart = performance.now();
  await receiver.setState(plan.outage);
  plan.log(
    `  receiver ${plan.outage === '503' ? 'answers 503' : 'refuses connections'} for ${seconds(plan.outageMs)} s; ${plan.outageEvents} nodes now…`,
  );
  const poller = (async () => {
    while (polling) {
      const w = await call<WebhookState>(t, 'GET', `/webhooks/${webhookId}`).catch(() => null);
      if (w) pending.push({ s: seconds(performance.now() - outageStart), pending: w.pending_deliveries });
      await sleep(5000);
    }
  })();
  const { made, failed } = await makeNodes(t, 'outage', plan.outageEvents, plan.clients);
  const madeEnd = performance.now();
  plan.log(`  ${made.length} nodes made in ${seconds(madeEnd - outageStart)} s (${failed} POSTs failed)`);
  if (madeEnd - outageStart > plan.outageMs)
    plan.log('  (the nodes took longer to make than the outage lasted: some were made after it)');
  await sleep(Math.max(0, outageStart + plan.outageMs - 2000 - performance.now()));
  const attemptsBefore = await call<{ data: Attempt[] }>(t, 'GET', `/webhooks/${webhookId}/attempts`);
  const stateBefore = await call<WebhookState>(t, 'GET', `/webhooks/${webhookId}`);
  await sleep(Math.max(0, outageStart + plan.outageMs - performance.now()));
  const recovered = performance.now();
  await receiver.setState('up');
  const duringOutage = receiver.receipts.slice(from);
  plan.log(
    `  receiver back after ${seconds(recovered - outageStart)} s (${stateBefore.pending_deliveries} pending, ` +
      `${duringOutage.length} attempts reached it meanwhile); waiting for the drain…`,
  );

  const created = made.map((m) => m.committed - outageStart);
  const expected = created.map((c) => expectedDelivery(plan.delays, c, recovered - outageStart));
  const latestExpected = Math.max(...expected.map((e) => e.latest));
  const ids = made.map((m) => m.nodeId);
  const complete = await tracker.waitFor(ids, latestExpected + 180_000, plan.log, 30_000);
  const arrivals = made
    .map((m) => tracker.first.get(m.nodeId)?.at)
    .filter((x): x is number => x !== undefined)
    .sort((a, b) => a - b);
  await sleep(2000);
  polling = false;
  await poller;
  const at = (q: number) => arrivals[Math.min(arrivals.length - 1, Math.floor(q * arrivals.length))] ?? NaN;
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
    kind: plan.outage,
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
    /** Percentiles of the delivery times after the recovery (s). */
    delivered_after_recovery_s: Object.fromEntries(
      [5, 25, 50, 75, 95].map((q) => [`p${q}`, seconds(at(q / 100) - recovered)]),
    ) as Record<'p5' | 'p25' | 'p50' | 'p75' | 'p95', number>,
    delivered_within_60_s: arrivals.filter((a) => a - recovered <= 60_000).length,
    /** The middle 90 % of the deliveries per second (p5 to p95 of their times): the bulk's rate. */
    drain_rate_p5_p95_per_s: (0.9 * arrivals.length) / ((at(0.95) - at(0.05)) / 1000),
    schedule: {
      delays: describeDelays(plan.delays),
      /** How many events the schedule delivers on each attempt (nominal times). */
      attempt_after_recovery: expected.reduce<Record<string, number>>(
        (n, e) => ({ ...n, [e.attempt]: (n[e.attempt] ?? 0) + 1 }),
        {},
      ),
      nominal_s: summary((e) => e.nominal),
      earliest_s: summary((e) => e.earliest),
      latest_s: summary((e) => e.latest),
    },
    checks: tally(receiver.receipts.slice(from), new Set(ids)),
  };
}
