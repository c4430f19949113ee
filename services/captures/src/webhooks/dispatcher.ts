import { createPump } from '@kg/db';
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
  /** Deliveries in flight at once (default 16). */
  concurrency?: number;
  /** Deliveries in flight at once to one endpoint (default 4). */
  perEndpoint?: number;
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

/**
 * Delivers queued webhook deliveries: claims due ones (SKIP LOCKED, a lease), signs each attempt
 * (Standard Webhooks), POSTs it, and records the attempt, the delivery's next step (delivered,
 * retried on the schedule, or given up after its window) and the endpoint's health, in one
 * transaction. A process that dies mid-batch leaves its claims to expire: those deliveries are
 * attempted again with the same `webhook-id` (at least once; receivers de-duplicate on it).
 */
export function createDispatcher(ctx: WebhooksContext, options: DispatcherOptions): Dispatcher {
  const concurrency = options.concurrency ?? 16;
  const perEndpoint = options.perEndpoint ?? 4;
  const leaseMs = options.leaseMs ?? 60_000;
  const idlePollMs = options.idlePollMs ?? 10_000;
  const retentionMs = options.retentionMs ?? 7 * 24 * 3600_000;
  let prunedAt = 0;

  async function record({ delivery, endpoint }: Claimed, at: Date, result: SendResult): Promise<void> {
    const attempts = delivery.attempts + 1;
    const now = ctx.now();
    const succeeded = result.outcome === 'succeeded';
    const next = succeeded ? null : nextAttemptAt(ctx.schedule, delivery.createdAt, attempts, now);
    let disabled: Awaited<ReturnType<typeof noteEndpointOutcome>> = null;
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
      disabled = await noteEndpointOutcome(tx, endpoint.id, {
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
    // Once committed: the fan-out no longer sends the endpoint events.
    if (disabled) ctx.subscribers.changed(delivery.tenantId);
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

  /**
   * One pass: `concurrency` lanes, each taking the next due delivery as soon as it is free, so
   * a slow receiver holds only its own lanes (never a whole batch of everyone's deliveries).
   * An endpoint has at most `perEndpoint` attempts in flight: one whose receiver hangs cannot
   * take every lane from the other endpoints (other tenants' included).
   */
  async function pass(evenIfStopped = false): Promise<number> {
    let total = 0;
    const inFlight = new Map<string, number>();
    let claims: Promise<unknown> = Promise.resolve();
    /** The next delivery for a free lane; claims are made one at a time per process. */
    const next = (): Promise<Claimed | undefined> => {
      const claim = claims.then(async () => {
        const now = ctx.now();
        const busy = [...inFlight].filter(([, n]) => n >= perEndpoint).map(([id]) => id);
        const [taken] = await claimDue(ctx.db, now, new Date(now.getTime() + leaseMs), 1, busy);
        if (taken) inFlight.set(taken.endpoint.id, (inFlight.get(taken.endpoint.id) ?? 0) + 1);
        return taken;
      });
      claims = claim.catch(() => undefined);
      return claim;
    };
    const lane = async () => {
      while (evenIfStopped || !pump.stopped) {
        const claimed = await next();
        if (!claimed) return;
        try {
          await deliver(claimed);
        } finally {
          inFlight.set(claimed.endpoint.id, inFlight.get(claimed.endpoint.id)! - 1);
        }
        total++;
      }
    };
    await Promise.all(Array.from({ length: concurrency }, lane));
    if (Date.now() - prunedAt > 3600_000) {
      prunedAt = Date.now();
      await pruneFinished(ctx.db, new Date(ctx.now().getTime() - retentionMs));
    }
    return total;
  }

  const pump = createPump({
    pass: () => pass(),
    onError: (err) => ctx.logger.warn({ err }, 'webhook dispatcher pass failed; will retry'),
    // Sleeps until the next delivery is due, at most idlePollMs.
    nextInMs: async () => {
      const due = await nextDue(ctx.db).catch(() => null);
      return due ? Math.min(idlePollMs, due.getTime() - ctx.now().getTime()) : idlePollMs;
    },
  });

  return {
    wake() {
      if (!pump.stopped) void pump.run();
    },
    drain: async () => {
      await pump.settled();
      return pass(true);
    },
    start: () => pump.start(),
    stop: () => pump.stop(),
  };
}
