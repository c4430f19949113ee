import { and, asc, eq, gt, sql } from 'drizzle-orm';
import type { Db } from '@kg/db';
import type { Change } from '../domain/change';
import { changes, links, nodes, tenantStats } from './schema';

export async function currentVersion(db: Db, tenantId: string): Promise<number> {
  const [row] = await db.select({ v: tenantStats.version }).from(tenantStats).where(eq(tenantStats.tenantId, tenantId));
  return row?.v ?? 0;
}

/** Log entries after `version`, in order. */
export async function changesSince(
  db: Db,
  tenantId: string,
  version: number,
): Promise<Array<{ version: number; change: Change }>> {
  const rows = await db
    .select({ version: changes.version, payload: changes.payload })
    .from(changes)
    .where(and(eq(changes.tenantId, tenantId), gt(changes.version, version)))
    .orderBy(asc(changes.version));
  return rows.map((r) => ({ version: r.version, change: r.payload as Change }));
}

/** A consistent snapshot of a tenant's graph (one repeatable-read transaction). */
export function loadSnapshot(db: Db, tenantId: string) {
  return db.transaction(
    async (tx) => {
      const [stats] = await tx
        .select({ v: tenantStats.version })
        .from(tenantStats)
        .where(eq(tenantStats.tenantId, tenantId));
      const nodeRows = await tx
        .select({ id: nodes.id, title: nodes.title, status: nodes.status, para: nodes.paraItemIds })
        .from(nodes)
        .where(eq(nodes.tenantId, tenantId));
      const linkRows = await tx
        .select({ s: links.sourceId, t: links.targetId, type: links.type, w: links.weight })
        .from(links)
        .where(eq(links.tenantId, tenantId));
      return { version: stats?.v ?? 0, nodes: nodeRows, links: linkRows };
    },
    { isolationLevel: 'repeatable read', accessMode: 'read only' },
  );
}

export interface LinkRow {
  s: string;
  t: string;
  type: string;
  w: number;
}

/** One keyset page of the tenant's nodes (every status) by id, after `after`, for the in-memory graph. */
export function nodeChunk(db: Db, tenantId: string, after: string | null, size: number) {
  return db
    .select({ id: nodes.id, title: nodes.title, status: nodes.status, para: nodes.paraItemIds })
    .from(nodes)
    .where(after === null ? eq(nodes.tenantId, tenantId) : and(eq(nodes.tenantId, tenantId), gt(nodes.id, after)))
    .orderBy(asc(nodes.id))
    .limit(size);
}

/**
 * One keyset page of the tenant's link rows in primary-key order (source, target), after
 * `after`. Pages are separate statements, so other queries run between them (PGlite has
 * one connection) while a big tenant loads.
 */
export function linkChunk(db: Db, tenantId: string, after: { s: string; t: string } | null, size: number) {
  const keyset = after ? sql`and (${links.sourceId}, ${links.targetId}) > (${after.s}, ${after.t})` : sql``;
  return db
    .select({ s: links.sourceId, t: links.targetId, type: links.type, w: links.weight })
    .from(links)
    .where(sql`${links.tenantId} = ${tenantId} ${keyset}`)
    .orderBy(asc(links.sourceId), asc(links.targetId))
    .limit(size) as Promise<LinkRow[]>;
}
