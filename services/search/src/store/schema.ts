import { sql } from 'drizzle-orm';
import { bigint, index, integer, pgSchema, primaryKey, text, timestamp } from 'drizzle-orm/pg-core';
import { processedEventsTable, tenantIdColumn } from '@kg/db';

export const search = pgSchema('search');

/**
 * The search service's projection of graph nodes, kept current from graph events.
 * `version` is the graph version of the last event applied: an event not newer is
 * ignored. A deleted node stays as a tombstone (`deleted_at` set, texts emptied) so a
 * late update cannot bring it back; tombstones are pruned after a retention.
 */
export const documents = search.table(
  'documents',
  {
    tenantId: tenantIdColumn(),
    nodeId: text().notNull(),
    title: text().notNull(),
    summary: text().notNull(),
    tags: text().array().notNull(),
    status: text().notNull(),
    /** The node's PARA items (from the event snapshot): the vector's filter payload. */
    paraItemIds: text()
      .array()
      .notNull()
      .default(sql`'{}'::text[]`),
    updatedAt: timestamp({ withTimezone: true, mode: 'date' }).notNull(),
    indexedAt: timestamp({ withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    version: bigint({ mode: 'number' }).notNull().default(0),
    deletedAt: timestamp({ withTimezone: true, mode: 'date' }),
    /**
     * The document version whose vector is in the vector index, and the embedding model that
     * made it (null: no vector). The indexer embeds every live document whose pair differs
     * from (version, current model) and removes the vector of every tombstone that has one.
     */
    embeddedVersion: bigint({ mode: 'number' }),
    embeddedModel: text(),
    /**
     * The payload layout of the stored point (indexing/indexer.ts PAYLOAD_VERSION; null: the first
     * layout, from before `source_capture_id`). A point with the current vector but an older
     * layout gets its payload rewritten, without re-embedding.
     */
    embeddedPayload: integer(),
    /**
     * Failed embedding attempts of the current (version, model), the model they were made
     * with, and when the next one may run: the indexer backs off and stops after a bound
     * (indexing/retry.ts) until the node changes (a new version resets them) or the model does.
     */
    embedFailures: integer().notNull().default(0),
    embedFailedModel: text(),
    embedRetryAt: timestamp({ withTimezone: true, mode: 'date' }),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.nodeId] }),
    index('documents_tenant_updated_idx').on(t.tenantId, t.updatedAt),
    index('documents_embed_pending_idx')
      .on(t.indexedAt)
      .where(sql`${t.embeddedVersion} is distinct from ${t.version}`),
    index('documents_deleted_at_idx')
      .on(t.deletedAt)
      .where(sql`${t.deletedAt} is not null`),
  ],
);

export const processedEvents = processedEventsTable(search);
