import { sql } from 'drizzle-orm';
import type { Db } from '@kg/db';

/** The tables the hot queries read (node list and search, links, PARA associations). */
const TABLES = ['graph.nodes', 'graph.links', 'graph.node_para_items'] as const;

/** Writes ever recorded (every write bumps its tenant's version) and nodes now, over all tenants. */
export async function writeCounters(db: Db): Promise<{ writes: number; nodes: number }> {
  const result = await db.execute(
    sql`select coalesce(sum(version), 0)::float8 as writes, coalesce(sum(total_nodes), 0)::float8 as nodes from graph.tenant_stats`,
  );
  const [row] = (result as unknown as { rows: Array<{ writes: number; nodes: number }> }).rows;
  return { writes: Number(row?.writes ?? 0), nodes: Number(row?.nodes ?? 0) };
}

/**
 * Refreshes the planner's statistics of the hot tables (row counts, lexeme frequencies, array
 * values). `vacuum` also reclaims dead rows and sets the visibility map (index-only scans):
 * for PGlite, which has no autovacuum; PostgreSQL's autovacuum does that itself.
 */
export async function analyzeTables(db: Db, vacuum: boolean): Promise<void> {
  for (const table of TABLES) await db.execute(sql.raw(`${vacuum ? 'vacuum (analyze)' : 'analyze'} ${table}`));
}
