import { and, arrayContains, count, desc, eq, inArray, sql, type SQL } from 'drizzle-orm';
import type { DbOrTx } from '@kg/db';
import { nodes } from './schema';

export type NodeRow = typeof nodes.$inferSelect;
export type NodeFields = Pick<NodeRow, 'title' | 'summary' | 'bodyMarkdown' | 'tags' | 'status'>;

/** Columns every read returns (the generated search vector stays in the database). */
export const columns = {
  id: nodes.id,
  tenantId: nodes.tenantId,
  title: nodes.title,
  summary: nodes.summary,
  bodyMarkdown: nodes.bodyMarkdown,
  tags: nodes.tags,
  tagsText: nodes.tagsText,
  paraItemIds: nodes.paraItemIds,
  status: nodes.status,
  connectionCount: nodes.connectionCount,
  sourceCaptureId: nodes.sourceCaptureId,
  createdAt: nodes.createdAt,
  updatedAt: nodes.updatedAt,
};
export type StoredNode = Omit<NodeRow, 'search' | 'searchLength'>;

export async function insertNode(
  db: DbOrTx,
  row: { id: string; tenantId: string; paraItemIds: string[]; sourceCaptureId?: string } & Omit<NodeFields, 'status'>,
): Promise<StoredNode> {
  const [created] = await db
    .insert(nodes)
    .values({ ...row, tagsText: row.tags.join(' ') })
    .returning(columns);
  return created!;
}

export async function findNode(db: DbOrTx, tenantId: string, id: string, lock = false): Promise<StoredNode | null> {
  const q = db
    .select(columns)
    .from(nodes)
    .where(and(eq(nodes.tenantId, tenantId), eq(nodes.id, id)));
  const [row] = lock ? await q.for('update') : await q;
  return row ?? null;
}

export async function updateNode(
  db: DbOrTx,
  tenantId: string,
  id: string,
  patch: Partial<NodeFields> & { sourceCaptureId?: string },
  now: Date,
) {
  const [row] = await db
    .update(nodes)
    .set({ ...patch, ...(patch.tags ? { tagsText: patch.tags.join(' ') } : {}), updatedAt: now })
    .where(and(eq(nodes.tenantId, tenantId), eq(nodes.id, id)))
    .returning(columns);
  return row ?? null;
}

export async function deleteNode(db: DbOrTx, tenantId: string, id: string): Promise<boolean> {
  const rows = await db
    .delete(nodes)
    .where(and(eq(nodes.tenantId, tenantId), eq(nodes.id, id)))
    .returning({ id: nodes.id });
  return rows.length === 1;
}

/** Which of `ids` are nodes of the tenant. */
export async function existingIds(db: DbOrTx, tenantId: string, ids: string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = await db
    .select({ id: nodes.id })
    .from(nodes)
    .where(and(eq(nodes.tenantId, tenantId), inArray(nodes.id, ids)));
  return new Set(rows.map((r) => r.id));
}

export interface ListFilter {
  status?: NodeRow['status'];
  paraItemId?: string;
  orphan?: boolean;
  sourceCaptureId?: string;
}

/** The tenant's nodes of `ids`, in any order. */
export async function findNodes(db: DbOrTx, tenantId: string, ids: string[]): Promise<StoredNode[]> {
  if (ids.length === 0) return [];
  return db
    .select(columns)
    .from(nodes)
    .where(and(eq(nodes.tenantId, tenantId), inArray(nodes.id, ids)));
}

/** The queries of one page of a tenant's nodes, newest first, and of their count (for EXPLAIN too). */
export function listQueries(db: DbOrTx, tenantId: string, filter: ListFilter, limit: number, offset: number) {
  const where: SQL[] = [eq(nodes.tenantId, tenantId)];
  if (filter.status) where.push(eq(nodes.status, filter.status));
  if (filter.paraItemId) where.push(arrayContains(nodes.paraItemIds, [filter.paraItemId]));
  if (filter.orphan === true) where.push(sql`cardinality(${nodes.paraItemIds}) = 0`);
  if (filter.orphan === false) where.push(sql`cardinality(${nodes.paraItemIds}) > 0`);
  if (filter.sourceCaptureId !== undefined) where.push(eq(nodes.sourceCaptureId, filter.sourceCaptureId));
  const condition = and(...where);
  return {
    page: db
      .select(columns)
      .from(nodes)
      .where(condition)
      .orderBy(desc(nodes.createdAt), desc(nodes.id))
      .limit(limit)
      .offset(offset),
    total: db.select({ n: count() }).from(nodes).where(condition),
  };
}

/** One page of a tenant's nodes, newest first (keyword search: store/keyword.ts). */
export async function listNodes(db: DbOrTx, tenantId: string, filter: ListFilter, limit: number, offset: number) {
  const q = listQueries(db, tenantId, filter, limit, offset);
  const [rows, [total]] = await Promise.all([q.page, q.total]);
  return { rows, total: total?.n ?? 0 };
}
