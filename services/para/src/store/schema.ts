import { sql } from 'drizzle-orm';
import { boolean, index, integer, pgSchema, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { createdAt, optionalTimestamp, outboxTable, tenantIdColumn, updatedAt } from '@kg/db';

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
    /**
     * Bumped in the transaction of every archive and unarchive and sent with the graph
     * command, which the graph service applies only if newer than the last it applied:
     * late or reordered commands cannot leave the links out of step with the status.
     */
    statusVersion: integer().notNull().default(0),
    /** Change counter: 1 at creation, every write of the item takes the next one (the `version` of its events). */
    version: integer().notNull().default(1),
    /**
     * Set on the item `items.ensure` made for a label (its case-folded label), unique per tenant
     * and category: concurrent ensures of one label can make one item only. Null on items made
     * otherwise; cleared when the item stops being active (the next ensure then makes a new one).
     */
    ensureKey: text(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
    completedAt: optionalTimestamp(),
    archivedAt: optionalTimestamp(),
  },
  (t) => [
    uniqueIndex('items_tenant_category_slug_idx').on(t.tenantId, t.category, t.slug),
    uniqueIndex('items_tenant_category_ensure_key_idx').on(t.tenantId, t.category, t.ensureKey),
    index('items_tenant_status_idx').on(t.tenantId, t.status),
    index('items_associations_pending_idx')
      .on(t.updatedAt)
      .where(sql`associations_pending`),
  ],
);

/**
 * Background reclassification jobs. The record is the job's state: a consumer that
 * resumes it (redelivery after a crash, or the start-up sweep) continues after `cursor`.
 */
export const jobs = para.table(
  'jobs',
  {
    id: text().primaryKey(),
    tenantId: tenantIdColumn(),
    kind: text({ enum: ['item_created', 'match', 'rescan'] }).notNull(),
    /** The item matched (item_created, match); null for a rescan (every active item). */
    paraItemId: text(),
    status: text({ enum: ['queued', 'running', 'done', 'failed'] })
      .notNull()
      .default('queued'),
    queued: integer().notNull().default(0),
    done: integer().notNull().default(0),
    assigned: integer().notNull().default(0),
    /** The last node id scored (candidates are walked in id order). */
    cursor: text(),
    error: text(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
    finishedAt: optionalTimestamp(),
  },
  (t) => [
    index('jobs_tenant_created_idx').on(t.tenantId, t.createdAt),
    index('jobs_unfinished_idx')
      .on(t.updatedAt)
      .where(sql`status in ('queued', 'running')`),
  ],
);

export const outbox = outboxTable(para);
