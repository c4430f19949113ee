import { and, asc, inArray, isNotNull, isNull, lt, sql } from 'drizzle-orm';
import { getTableConfig } from 'drizzle-orm/pg-core';
import type { Topic } from '@kg/contracts';
import { createPump, newId, type Db, type DbOrTx, type OutboxTable } from '@kg/db';
import type { Logger } from '@kg/logger';
import type { EventBus } from './port';

/** The transactions (or clients) that enqueued an event: see `enqueuedIn`. */
const withEvents = new WeakSet<DbOrTx>();

/** Writes an event into the outbox inside the caller's transaction. */
export async function enqueueEvent(
  tx: DbOrTx,
  table: OutboxTable,
  topic: Topic,
  event: { id: string; tenant_id: string },
): Promise<void> {
  await tx.insert(table).values({ id: event.id, topic, key: event.tenant_id, payload: event });
  withEvents.add(tx);
}

/**
 * Whether an event was enqueued through `tx`: once it has committed, the relay has something
 * to publish. A write that enqueued none need not wake it (a wake is a relay transaction).
 */
export const enqueuedIn = (tx: DbOrTx): boolean => withEvents.has(tx);

export const newEventId = () => newId('event');

export interface OutboxRelay {
  /** Hint that something was committed: publish soon rather than at the next poll. */
  wake(): void;
  /** Publishes everything pending now; resolves when the outbox is empty or the bus fails. */
  flush(): Promise<number>;
  start(): void;
  stop(): Promise<void>;
}

/**
 * Publishes outbox rows in commit order, marking them published only after the bus
 * accepted them: a broker outage delays events, it never loses them. Rows are locked
 * with SKIP LOCKED so several replicas can relay without publishing a row twice.
 */
export function createOutboxRelay(opts: {
  db: Db;
  table: OutboxTable;
  bus: EventBus;
  logger: Logger;
  pollMs?: number;
  batchSize?: number;
  /** Published rows are kept this long (default 7 days), then pruned, at most once per `pruneEveryMs`. */
  retentionMs?: number;
  pruneEveryMs?: number;
}): OutboxRelay {
  const { db, table, bus, logger } = opts;
  const pollMs = opts.pollMs ?? 500;
  const batchSize = opts.batchSize ?? 200;
  const retentionMs = opts.retentionMs ?? 7 * 24 * 3600 * 1000;
  const pruneEveryMs = opts.pruneEveryMs ?? 3600 * 1000;
  let prunedAt = 0;
  const lockKey = `kg-outbox:${getTableConfig(table).schema ?? 'public'}`;

  async function prune(): Promise<void> {
    if (Date.now() - prunedAt < pruneEveryMs) return;
    prunedAt = Date.now();
    await db
      .delete(table)
      .where(and(isNotNull(table.publishedAt), lt(table.publishedAt, new Date(Date.now() - retentionMs))));
  }

  async function publishBatch(): Promise<number> {
    return db.transaction(async (tx) => {
      // One publisher at a time per outbox: of several replicas, the one holding this
      // lock publishes; the others find it taken and leave the rows to it. Batches then
      // go out in seq order, and a tenant's seq order is its commit order (its writes
      // serialize), so a tenant's events are published in order. Consumers still check
      // versions: this keeps order in the common case, versions keep it correct.
      const result = (await tx.execute(
        sql`select pg_try_advisory_xact_lock(hashtextextended(${lockKey}, 0)) as locked`,
      )) as unknown as { rows: Array<{ locked: boolean }> };
      if (!result.rows[0]?.locked) return 0;
      const rows = await tx
        .select()
        .from(table)
        .where(isNull(table.publishedAt))
        .orderBy(asc(table.seq))
        .limit(batchSize)
        .for('update', { skipLocked: true });
      if (rows.length === 0) return 0;
      const byTopic = new Map<Topic, Array<{ key: string; value: unknown }>>();
      for (const row of rows) {
        const list = byTopic.get(row.topic as Topic) ?? [];
        list.push({ key: row.key, value: row.payload });
        byTopic.set(row.topic as Topic, list);
      }
      for (const [topic, messages] of byTopic) await bus.publish(topic, messages);
      await tx
        .update(table)
        .set({ publishedAt: new Date(), attempts: sql`${table.attempts} + 1` })
        .where(
          and(
            inArray(
              table.id,
              rows.map((r) => r.id),
            ),
            isNull(table.publishedAt),
          ),
        );
      return rows.length;
    });
  }

  async function drainOnce(): Promise<number> {
    let total = 0;
    for (;;) {
      const n = await publishBatch();
      total += n;
      if (n < batchSize) break;
    }
    await prune();
    return total;
  }

  // Background work, even when a request's commit wakes it (the database serves requests first).
  const pump = createPump({
    pass: drainOnce,
    onError: (err) => logger.warn({ err: String(err) }, 'outbox relay could not publish; will retry'),
    nextInMs: () => pollMs,
  });

  return {
    wake() {
      if (!pump.stopped) void pump.run();
    },
    flush: async () => {
      await pump.settled();
      return pump.run();
    },
    start: () => pump.start(),
    async stop() {
      await pump.stop();
      await drainOnce().catch(() => 0);
    },
  };
}
