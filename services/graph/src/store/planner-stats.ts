import { sql } from 'drizzle-orm';
import type { Db } from '@kg/db';

/**
 * The tables the hot queries read (node list and search, links, PARA associations, keyword
 * statistics: every node write updates dozens of keyword_terms rows, so PGlite, which has no
 * autovacuum, needs them vacuumed too).
 */
const TABLES = [
  'graph.nodes',
  'graph.links',
  'graph.node_para_items',
  'graph.keyword_terms',
  'graph.keyword_corpus',
] as const;
/** The GIN indexes of those tables: inserts land in a pending list until a vacuum merges it. */
const GIN_INDEXES = ['graph.nodes_search_idx', 'graph.nodes_para_item_ids_idx'] as const;

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
 *
 * Without `vacuum`, the GIN indexes' pending lists are merged too: after a bulk write they hold
 * up to gin_pending_list_limit (4 MB) of unsorted entries that every full-text search scans,
 * and the planner, seeing them, prefers reading the whole table until autovacuum comes by.
 */
export async function analyzeTables(db: Db, vacuum: boolean): Promise<void> {
  for (const table of TABLES) await db.execute(sql.raw(`${vacuum ? 'vacuum (analyze)' : 'analyze'} ${table}`));
  if (!vacuum)
    for (const index of GIN_INDEXES) await db.execute(sql`select gin_clean_pending_list(${index}::regclass)`);
}
