import { sql } from 'drizzle-orm';
import type { Db } from '@kg/db';

/**
 * What a user would write: one recursive CTE that walks links up to `depth` hops, then
 * keeps each node at its smallest depth, joined to the node rows, bounded by max_nodes.
 * (It returns no edges or frontier, which only flatters it.)
 */
export async function recursiveCteBfs(db: Db, tenantId: string, seed: string, depth: number, maxNodes: number) {
  const result = (await db.execute(sql`
    with recursive bfs(id, depth) as (
      select ${seed}::text, 0
      union
      select l.target_id, b.depth + 1
      from bfs b
      join graph.links l on l.tenant_id = ${tenantId} and l.source_id = b.id
      where b.depth < ${depth}
    )
    select n.id, n.title, n.connection_count, d.depth
    from (select id, min(depth) as depth from bfs group by id) d
    join graph.nodes n on n.tenant_id = ${tenantId} and n.id = d.id and n.status <> 'dismissed'
    order by d.depth, n.id
    limit ${maxNodes}`)) as unknown as { rows: unknown[] };
  return result.rows;
}
