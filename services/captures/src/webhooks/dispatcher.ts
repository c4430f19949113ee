import {
  claimDue,
  finishDelivery,
  logAttempt,
  nextDue,
  noteEndpointOutcome,
  pruneFinished,
  type Claimed,
} from '../store/webhooks';
import type { WebhooksContext } from './context';
import { nextAttemptAt } from './schedule';
import { signedHeaders } from './secrets';
import type { Sender, SendResult } from './sender';

export interface DispatcherOptions {
  send: Sender;
  /** Deliveries taken per claim (default 50). */
  batchSize?: number;
  /** Deliveries in flight at once (default 8). */
  concurrency?: number;
  /** How long a claim holds (default 60 s; longer than an attempt's timeout). */
  leaseMs?: number;
  /** Longest sleep between passes when nothing is due (default 10 s): deliveries queued by another replica, expired claims. */
  idlePollMs?: number;
  /** Finished deliveries are kept this long (default 7 days), pruned at most hourly. */
  retentionMs?: number;
}

export interface Dispatcher {
  /** Something is due now: deliver soon rather than at the next timer. */
  wake(): void;
  /** One pass now: delivers everything due; resolves with how many attempts were made. */
  drain(): Promise<number>;
  start(): void;
  stop(): Promise<void>;
}

async function eachLimited<T>(items: readonly T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const lanes = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) await fn(items[next++]!);
  });
  await Promise.all(lanes);
}

/**
 * Delivers queued webhook deliveries: claims due ones (SKIP LOCKED, a lease), signs each attempt
 * (Standard Webhooks), POSTs it, and records the attempt, the delivery's next step (delivered,
 * retried on the schedule, or given up after its window) and the endpoint's health, in one
 * transaction. A process that dies mid-batch leaves its claims to expire: those deliveries are
 * attempted again with the same `webhook-id` (at least once; receivers de-duplicate on it).
 */
export function createDispatcher(ctx: WebhooksContext, options: DispatcherOptions): Dispatcher {
  const batchSize = options.batchSize ?? 50;
  const concurrency = options.concurrency ?? 8;
  const leaseMs = options.leaseMs ?? 60_000;
  const idlePollMs = options.idlePollMs ?? 10_000;
  const retentionMs = options.retentionMs ?? 7 * 24 * 3600_000;
  let prunedAt = 0;
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<number> | null = null;
  let again = false;
  let stopped = true;

  async function record({ delivery, endpoint }: Claimed, at: Date, result: SendResult): Promise<void> {
    const attempts = delivery.attempts + 1;
    const now = ctx.now();
    const succeeded = result.outcome === 'succeeded';
    const next = succeeded ? null : nextAttemptAt(ctx.schedule, delivery.createdAt, attempts, now);
    await ctx.db.transaction(async (tx) => {
      const still = await finishDelivery(
        tx,
        delivery.id,
        succeeded
          ? { status: 'delivered', attempts, finishedAt: now }
          : next
            ? { attempts, nextAttemptAt: next }
            : { status: 'failed', attempts, finishedAt: now },
      );
      if (!still) return; // the endpoint was deleted meanwhile (its deliveries with it)
      await logAttempt(tx, {
        tenantId: delivery.tenantId,
        endpointId: endpoint.id,
        deliveryId: delivery.id,
        messageId: delivery.messageId,
        eventType: delivery.eventType,
        attempt: attempts,
        attemptedAt: at,
        outcome: result.outcome,
        httpStatus: result.httpStatus,
        latencyMs: result.latencyMs,
        error: result.error,
        nextAttemptAt: next,
      });
      const disabled = await noteEndpointOutcome(tx, endpoint.id, {
        succeeded,
        gone: result.gone,
        at: now,
        failureWindowMs: ctx.failureWindowMs,
      });
      if (disabled)
        ctx.logger.warn(
          { tenant_id: delivery.tenantId, webhook_id: endpoint.id, reason: disabled },
          'webhook endpoint disabled',
        );
    });
  }

  async function deliver(claimed: Claimed): Promise<void> {
    const { delivery, endpoint } = claimed;
    const at = ctx.now();
    const overlap = endpoint.previousSecretExpiresAt && endpoint.previousSecretExpiresAt > at;
    const headers = signedHeaders(
      { secret: endpoint.secret, previous: overlap ? endpoint.previousSecret : null },
      delivery.messageId,
      at,
      delivery.body,
    );
    const result = await options.send(endpoint.url, headers, delivery.body);
    await record(claimed, at, result).catch((err: unknown) =>
      // The claim expires and the delivery is attempted again: at least once.
      ctx.logger.warn(
        { err, webhook_delivery_id: delivery.id },
        'could not record a webhook attempt; it will be retried',
      ),
    );
  }

  async function pass(): Promise<number> {
    let total = 0;
    for (;;) {
      const now = ctx.now();
      const claimed = await claimDue(ctx.db, now, new Date(now.getTime() + leaseMs), batchSize);
      if (claimed.length === 0) break;
      await eachLimited(claimed, concurrency, deliver);
      total += claimed.length;
      if (stopped) break;
    }
    if (Date.now() - prunedAt > 3600_000) {
      prunedAt = Date.now();
      await pruneFinished(ctx.db, new Date(ctx.now().getTime() - retentionMs));
    }
    return total;
  }

  function run(): Promise<number> {
    if (running) {
      again = true;
      return running;
    }
    running = pass()
      .catch((err: unknown) => {
        ctx.logger.warn({ err }, 'webhook dispatcher pass failed; will retry');
        return 0;
      })
      .finally(() => {
        running = null;
        if (again && !stopped) {
          again = false;
          void run();
        } else void schedule();
      });
    return running;
  }

  /** Sleeps until the next delivery is due, at most idlePollMs. */
  async function schedule(): Promise<void> {
    if (stopped) return;
    const due = await nextDue(ctx.db).catch(() => null);
    if (stopped || running) return;
    const wait = due ? Math.max(0, Math.min(idlePollMs, due.getTime() - ctx.now().getTime())) : idlePollMs;
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => void run(), wait);
    timer.unref();
  }

  return {
    wake() {
      if (!stopped) void run();
    },
    drain: async () => {
      if (running) await running;
      return pass();
    },
    start() {
      if (!stopped) return;
      stopped = false;
      void run();
    },
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running;
    },
  };
}
