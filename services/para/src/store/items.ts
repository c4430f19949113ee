import { and, asc, eq, inArray, like, lt, or, sql } from 'drizzle-orm';
import type { DbOrTx } from '@kg/db';
import { items } from './schema';

export type ItemRow = typeof items.$inferSelect;
export type Category = ItemRow['category'];
export type ItemPatch = Partial<
  Pick<
    ItemRow,
    | 'label'
    | 'description'
    | 'slug'
    | 'status'
    | 'restoreStatus'
    | 'associationsPending'
    | 'statusVersion'
    | 'completedAt'
    | 'archivedAt'
  >
>;

/** PARA items of one tenant among `ids`; ids of other tenants or unknown ids are simply absent. */
export async function findItems(db: DbOrTx, tenantId: string, ids: string[]) {
  if (ids.length === 0) return [];
  return db
    .select({ id: items.id, category: items.category, status: items.status })
    .from(items)
    .where(and(eq(items.tenantId, tenantId), inArray(items.id, ids)));
}

export async function findItem(db: DbOrTx, tenantId: string, id: string, lock = false): Promise<ItemRow | null> {
  const q = db
    .select()
    .from(items)
    .where(and(eq(items.tenantId, tenantId), eq(items.id, id)));
  const [row] = lock ? await q.for('update') : await q;
  return row ?? null;
}

export interface ItemFilter {
  category?: Category;
  status?: ItemRow['status'];
}

/** Categories in PARA order: projects, areas, resources. */
const categoryOrder = sql`array_position(array['projects', 'areas', 'resources'], ${items.category})`;

/** A tenant's items, by category (PARA order) then creation (oldest first). */
export function listItems(db: DbOrTx, tenantId: string, filter: ItemFilter = {}): Promise<ItemRow[]> {
  return db
    .select()
    .from(items)
    .where(
      and(
        eq(items.tenantId, tenantId),
        filter.category ? eq(items.category, filter.category) : undefined,
        filter.status ? eq(items.status, filter.status) : undefined,
      ),
    )
    .orderBy(categoryOrder, asc(items.createdAt), asc(items.id));
}

/** Slugs of the tenant's category equal to `base` or of the form `base-…`. */
export async function slugsLike(db: DbOrTx, tenantId: string, category: Category, base: string): Promise<string[]> {
  const escaped = base.replace(/[\\%_]/g, (c) => `\\${c}`);
  const rows = await db
    .select({ slug: items.slug })
    .from(items)
    .where(
      and(
        eq(items.tenantId, tenantId),
        eq(items.category, category),
        or(eq(items.slug, base), like(items.slug, `${escaped}-%`)),
      ),
    );
  return rows.map((r) => r.slug);
}

export async function insertItem(db: DbOrTx, row: typeof items.$inferInsert): Promise<ItemRow> {
  const [created] = await db.insert(items).values(row).returning();
  return created!;
}

/** Inserts the item unless its ensure key is taken in its tenant and category (then null). */
export async function insertItemOnce(db: DbOrTx, row: typeof items.$inferInsert): Promise<ItemRow | null> {
  const [created] = await db
    .insert(items)
    .values(row)
    .onConflictDoNothing({ target: [items.tenantId, items.category, items.ensureKey] })
    .returning();
  return created ?? null;
}

/** Applies a change and takes the item's next version. */
export async function updateItem(
  db: DbOrTx,
  tenantId: string,
  id: string,
  patch: ItemPatch,
  now: Date,
): Promise<ItemRow | null> {
  const [row] = await db
    .update(items)
    .set({ ...patch, updatedAt: now, version: sql`${items.version} + 1` })
    .where(and(eq(items.tenantId, tenantId), eq(items.id, id)))
    .returning();
  return row ?? null;
}

/** Serializes a tenant's PARA writes (slug allocation, lifecycle transitions). */
export async function lockTenantItems(db: DbOrTx, tenantId: string): Promise<void> {
  await db.execute(sql`select pg_advisory_xact_lock(hashtextextended(${'para:' + tenantId}, 0))`);
}

/**
 * Clears the pending flag once graph confirmed the command of `statusVersion`, unless an
 * archive or unarchive happened since (then its own, newer command is pending).
 */
export async function clearAssociationsPending(db: DbOrTx, tenantId: string, id: string, statusVersion: number) {
  await db
    .update(items)
    .set({ associationsPending: false })
    .where(and(eq(items.tenantId, tenantId), eq(items.id, id), eq(items.statusVersion, statusVersion)));
}

/** Items of any tenant whose node associations still have to follow their status. */
export function pendingAssociations(db: DbOrTx, changedBefore: Date, limit: number): Promise<ItemRow[]> {
  return db
    .select()
    .from(items)
    .where(and(eq(items.associationsPending, true), lt(items.updatedAt, changedBefore)))
    .orderBy(asc(items.updatedAt))
    .limit(limit);
}
