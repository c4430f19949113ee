import { index, pgSchema, primaryKey, text, timestamp } from 'drizzle-orm/pg-core';
import { processedEventsTable, tenantIdColumn } from '@kg/db';

export const search = pgSchema('search');

/** The search service's projection of graph nodes, kept current from graph events. */
export const documents = search.table(
  'documents',
  {
    tenantId: tenantIdColumn(),
    nodeId: text().notNull(),
    title: text().notNull(),
    summary: text().notNull(),
    tags: text().array().notNull(),
    status: text().notNull(),
    updatedAt: timestamp({ withTimezone: true, mode: 'date' }).notNull(),
    indexedAt: timestamp({ withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.nodeId] }),
    index('documents_tenant_updated_idx').on(t.tenantId, t.updatedAt),
  ],
);

export const processedEvents = processedEventsTable(search);
