import { and, count, eq, lt, sql } from 'drizzle-orm';
import type { DbOrTx } from '@kg/db';
import { nodes, tenantStats } from './schema';

export interface StatsDelta {
  nodes?: number;
  validated?: number;
  links?: number;
}

/** Adds a delta to a tenant's counters, inside the caller's write transaction. */
export async function bumpStats(db: DbOrTx, tenantId: string, d: StatsDelta): Promise<void> {
  if (!d.nodes && !d.validated && !d.links) return;
  await db
    .insert(tenantStats)
    .values({ tenantId, totalNodes: d.nodes ?? 0, validatedNodes: d.validated ?? 0, totalLinks: d.links ?? 0 })
    .onConflictDoUpdate({
      target: tenantStats.tenantId,
      set: {
        totalNodes: sql`${tenantStats.totalNodes} + ${d.nodes ?? 0}`,
        validatedNodes: sql`${tenantStats.validatedNodes} + ${d.validated ?? 0}`,
        totalLinks: sql`${tenantStats.totalLinks} + ${d.links ?? 0}`,
      },
    });
}

export async function readStats(db: DbOrTx, tenantId: string) {
  const [row] = await db.select().from(tenantStats).where(eq(tenantStats.tenantId, tenantId));
  return { totalNodes: row?.totalNodes ?? 0, validatedNodes: row?.validatedNodes ?? 0, totalLinks: row?.totalLinks ?? 0 };
}

/** Raw nodes unchanged since `before`: counted on a partial index holding raw nodes only. */
export async function countStale(db: DbOrTx, tenantId: string, before: Date): Promise<number> {
  const [row] = await db
    .select({ n: count() })
    .from(nodes)
    .where(and(eq(nodes.tenantId, tenantId), sql`${nodes.status} = 'raw'`, lt(nodes.updatedAt, before)));
  return row?.n ?? 0;
}
