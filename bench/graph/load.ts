import { sql } from 'drizzle-orm';
import type { Db } from '@kg/db';
import { links, nodes, tenantStats } from '../../services/graph/src/store/schema';
import { LINK_TYPES, type SyntheticGraph } from './generate';

const BATCH = 4000;

/**
 * Loads a synthetic graph into the graph service's own tables (its drizzle schema), as
 * the service stores it: two rows per link, connection counts and tenant counters set.
 */
export async function loadGraph(db: Db, tenantId: string, g: SyntheticGraph, log: (s: string) => void): Promise<void> {
  const started = Date.now();
  // Bulk-load trick: drop the links table's secondary indexes, load, then rebuild them
  // from their own definitions (read from pg_indexes, so they are exactly the migration's).
  const defs = (
    (await db.execute(sql`select indexname, indexdef from pg_indexes where schemaname = 'graph' and tablename = 'links' and indexname not like '%_pk'`)) as unknown as {
      rows: Array<{ indexname: string; indexdef: string }>;
    }
  ).rows;
  for (const d of defs) await db.execute(sql.raw(`drop index graph."${d.indexname}"`));
  for (let i = 0; i < g.ids.length; i += BATCH) {
    const rows = g.ids.slice(i, i + BATCH).map((id, k) => ({
      id,
      tenantId,
      title: `Note ${i + k}`,
      summary: '',
      bodyMarkdown: '',
      tags: [],
      tagsText: '',
      paraItemIds: [],
    }));
    await db.insert(nodes).values(rows);
  }
  for (let i = 0; i < g.a.length; i += BATCH / 2) {
    const rows = [];
    for (let k = i; k < Math.min(g.a.length, i + BATCH / 2); k++) {
      const a = g.ids[g.a[k]!]!;
      const b = g.ids[g.b[k]!]!;
      const type = LINK_TYPES[g.type[k]!]!;
      const weight = g.weight[k]!;
      rows.push({ tenantId, sourceId: a, targetId: b, type, weight }, { tenantId, sourceId: b, targetId: a, type, weight });
    }
    await db.insert(links).values(rows);
    if ((i / (BATCH / 2)) % 50 === 0) log(`  links ${i.toLocaleString()} / ${g.a.length.toLocaleString()}`);
  }
  for (const d of defs) await db.execute(sql.raw(d.indexdef));
  await db.execute(sql`update graph.nodes n set connection_count = c.n from (
    select source_id, count(*)::int as n from graph.links where tenant_id = ${tenantId} group by source_id) c
    where n.tenant_id = ${tenantId} and n.id = c.source_id`);
  await db.insert(tenantStats).values({ tenantId, totalNodes: g.ids.length, totalLinks: g.a.length });
  await db.execute(sql`analyze graph.nodes`);
  await db.execute(sql`analyze graph.links`);
  log(`  loaded ${g.ids.length.toLocaleString()} nodes, ${g.a.length.toLocaleString()} links in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}
