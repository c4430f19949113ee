import { and, count, eq, lt, sql } from 'drizzle-orm';
import type { Change } from '../domain/change';
import type { DbOrTx } from '@kg/db';
import { changes, nodes, tenantStats } from './schema';

export interface StatsDelta {
  nodes?: number;
  validated?: number;
  links?: number;
}

/** Change-log entries kept per tenant; older ones are pruned (a cache that far behind reloads). */
const KEEP_CHANGES = 10_000;

/**
 * Takes the tenant's write lock (its counter row) as the first step of every write
 * transaction: a tenant's writes apply one at a time, so connection counts recomputed
 * inside a write see every committed link, versions commit in order, and two writes
 * touching the same nodes can never deadlock.
 */
export async function lockTenant(db: DbOrTx, tenantId: string): Promise<void> {
  await db
    .insert(tenantStats)
    .values({ tenantId })
    .onConflictDoUpdate({ target: tenantStats.tenantId, set: { version: sql`${tenantStats.version}` } });
}

/**
 * Records a write inside its transaction: adds the delta to the tenant's counters, takes
 * the next version under the counter row's lock (so versions commit in order), and
 * appends the change to the tenant's change log.
 */
export async function recordWrite(db: DbOrTx, tenantId: string, d: StatsDelta, change: Change): Promise<number> {
  const [row] = await db
    .insert(tenantStats)
    .values({
      tenantId,
      totalNodes: d.nodes ?? 0,
      validatedNodes: d.validated ?? 0,
      totalLinks: d.links ?? 0,
      version: 1,
    })
    .onConflictDoUpdate({
      target: tenantStats.tenantId,
      set: {
        totalNodes: sql`${tenantStats.totalNodes} + ${d.nodes ?? 0}`,
        validatedNodes: sql`${tenantStats.validatedNodes} + ${d.validated ?? 0}`,
        totalLinks: sql`${tenantStats.totalLinks} + ${d.links ?? 0}`,
        version: sql`${tenantStats.version} + 1`,
      },
    })
    .returning({ version: tenantStats.version });
  const version = row!.version;
  await db.insert(changes).values({ tenantId, version, payload: change });
  if (version % 1000 === 0) {
    await db.delete(changes).where(and(eq(changes.tenantId, tenantId), lt(changes.version, version - KEEP_CHANGES)));
  }
  return version;
}

export async function readStats(db: DbOrTx, tenantId: string) {
  const [row] = await db.select().from(tenantStats).where(eq(tenantStats.tenantId, tenantId));
  return {
    totalNodes: row?.totalNodes ?? 0,
    validatedNodes: row?.validatedNodes ?? 0,
    totalLinks: row?.totalLinks ?? 0,
    version: row?.version ?? 0,
  };
}

/** Raw nodes unchanged since `before`: counted on a partial index holding raw nodes only. */
export async function countStale(db: DbOrTx, tenantId: string, before: Date): Promise<number> {
  const [row] = await db
    .select({ n: count() })
    .from(nodes)
    .where(and(eq(nodes.tenantId, tenantId), sql`${nodes.status} = 'raw'`, lt(nodes.updatedAt, before)));
  return row?.n ?? 0;
}
