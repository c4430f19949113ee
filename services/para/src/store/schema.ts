import { sql } from 'drizzle-orm';
import { boolean, index, pgSchema, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { createdAt, optionalTimestamp, tenantIdColumn, updatedAt } from '@kg/db';

export const para = pgSchema('para');

export const items = para.table(
  'items',
  {
    id: text().primaryKey(),
    tenantId: tenantIdColumn(),
    category: text({ enum: ['projects', 'areas', 'resources'] }).notNull(),
    label: text().notNull(),
    description: text().notNull().default(''),
    slug: text().notNull(),
    status: text({ enum: ['active', 'completed', 'archived'] })
      .notNull()
      .default('active'),
    /** While archived: the status unarchive returns the item to. */
    restoreStatus: text({ enum: ['active', 'completed'] }),
    /**
     * True from an archive or unarchive until the graph service has confirmed that the
     * item's node associations follow its status; a sweeper retries until it has.
     */
    associationsPending: boolean().notNull().default(false),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
    completedAt: optionalTimestamp(),
    archivedAt: optionalTimestamp(),
  },
  (t) => [
    uniqueIndex('items_tenant_category_slug_idx').on(t.tenantId, t.category, t.slug),
    index('items_tenant_status_idx').on(t.tenantId, t.status),
    index('items_associations_pending_idx')
      .on(t.updatedAt)
      .where(sql`associations_pending`),
  ],
);
