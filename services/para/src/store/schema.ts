import { index, pgSchema, text, uniqueIndex } from 'drizzle-orm/pg-core';
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
    createdAt: createdAt(),
    updatedAt: updatedAt(),
    completedAt: optionalTimestamp(),
    archivedAt: optionalTimestamp(),
  },
  (t) => [
    uniqueIndex('items_tenant_category_slug_idx').on(t.tenantId, t.category, t.slug),
    index('items_tenant_status_idx').on(t.tenantId, t.status),
  ],
);
