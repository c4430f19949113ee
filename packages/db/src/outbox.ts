import { sql } from 'drizzle-orm';
import { bigint, index, integer, jsonb, text, timestamp, type PgSchema } from 'drizzle-orm/pg-core';

/**
 * The transactional outbox of a service, in that service's own schema. Events are
 * inserted in the same transaction as the change they describe; a relay publishes
 * them to the bus and marks them published.
 */
export function outboxTable(schema: PgSchema) {
  return schema.table(
    'outbox',
    {
      id: text().primaryKey(),
      /** Commit order: the relay publishes by ascending seq. */
      seq: bigint({ mode: 'number' }).generatedAlwaysAsIdentity(),
      topic: text().notNull(),
      key: text().notNull(),
      payload: jsonb().notNull(),
      createdAt: timestamp({ withTimezone: true, mode: 'date' })
        .notNull()
        .default(sql`now()`),
      publishedAt: timestamp({ withTimezone: true, mode: 'date' }),
      attempts: integer().notNull().default(0),
    },
    (t) => [
      index('outbox_pending_idx')
        .on(t.seq)
        .where(sql`${t.publishedAt} is null`),
    ],
  );
}

export type OutboxTable = ReturnType<typeof outboxTable>;
