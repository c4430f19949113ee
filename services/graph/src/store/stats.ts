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
 * Serializes the tenant's graph writes: the first statement of every write transaction.
 * Writes already serialize on the tenant_stats row (recordWrite), but only at their end;
 * taking one lock first gives every write the same lock order (tenant, then node rows,
 * then link rows), so replacements with overlapping neighbours neither deadlock nor
 * recount connection_count from a stale snapshot. Other tenants are not affected (a hash
 * collision only serializes two tenants' writes, it never mixes their data).
 */
export async function lockTenantWrites(db: DbOrTx, tenantId: string): Promise<void> {
  await db.execute(sql`select pg_advisory_xact_lock(hashtextextended(${'graph:' + tenantId}, 0))`);
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
