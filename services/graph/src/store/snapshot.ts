import { and, asc, eq, gt } from 'drizzle-orm';
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
