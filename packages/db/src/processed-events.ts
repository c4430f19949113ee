import { sql } from 'drizzle-orm';
import { primaryKey, text, timestamp, type PgSchema } from 'drizzle-orm/pg-core';

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
    (t) => [primaryKey({ columns: [t.consumer, t.eventId] })],
  );
}

export type ProcessedEventsTable = ReturnType<typeof processedEventsTable>;
