import { lt, sql } from 'drizzle-orm';
import { index, primaryKey, text, timestamp, type PgSchema } from 'drizzle-orm/pg-core';
import type { DbOrTx } from './client';

/**
 * A consumer's ledger of handled event ids, in the consuming service's own schema.
 * Recorded in the same transaction as the handler's effects, so handling an event
 * twice (at-least-once delivery, redelivery after a crash) changes nothing.
 */
export function processedEventsTable(schema: PgSchema) {
  return schema.table(
    'processed_events',
    {
      consumer: text().notNull(),
      eventId: text().notNull(),
      processedAt: timestamp({ withTimezone: true, mode: 'date' })
        .notNull()
        .default(sql`now()`),
    },
    (t) => [
      primaryKey({ columns: [t.consumer, t.eventId] }),
      index('processed_events_processed_at_idx').on(t.processedAt),
    ],
  );
}

export type ProcessedEventsTable = ReturnType<typeof processedEventsTable>;

/** Ledger rows are kept this long by default: far longer than any redelivery takes. */
export const PROCESSED_EVENTS_RETENTION_MS = 7 * 24 * 3600 * 1000;

/**
 * Deletes ledger rows recorded before `before`; returns how many. An event redelivered
 * after its row is gone is handled again, so consumers also ignore stale versions.
 */
export async function pruneProcessedEvents(db: DbOrTx, ledger: ProcessedEventsTable, before: Date): Promise<number> {
  const rows = await db.delete(ledger).where(lt(ledger.processedAt, before)).returning({ eventId: ledger.eventId });
  return rows.length;
}
