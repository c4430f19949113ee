import { and, asc, desc, eq, inArray, sql } from 'drizzle-orm';
import type { DbOrTx } from '@kg/db';
import type { NeighbourEdge } from '../domain/bfs';
import { links, nodes } from './schema';
import type { EdgeRow } from './views';

/**
 * The seed view straight from the database, for a tenant whose in-memory graph is still
 * loading: the same rules as over memory (strongest first: weight desc, then id; visible
 * nodes only), through the links' (source, weight desc, target) index.
 */

/** The non-dismissed node with the most connections, ties broken by the lowest id. */
export async function hubFromDb(db: DbOrTx, tenantId: string): Promise<string | null> {
  const [row] = await db
    .select({ id: nodes.id })
    .from(nodes)
    .where(and(eq(nodes.tenantId, tenantId), sql`${nodes.status} <> 'dismissed'`))
    .orderBy(desc(nodes.connectionCount), asc(nodes.id))
    .limit(1);
  return row?.id ?? null;
}

/** Up to `perNode` strongest links of each id to visible nodes (one statement for all ids). */
export async function strongestFromDb(
  db: DbOrTx,
  tenantId: string,
  ids: string[],
  perNode: number,
): Promise<Map<string, NeighbourEdge[]>> {
  const out = new Map<string, NeighbourEdge[]>(ids.map((id) => [id, []]));
  if (ids.length === 0) return out;
  const result = (await db.execute(sql`
    select f.id as source, l.target_id as target, l.weight as weight
    from unnest(array[${sql.join(
      ids.map((id) => sql`${id}`),
      sql`, `,
    )}]::text[]) as f(id)
    cross join lateral (
      select k.target_id, k.weight
      from ${links} k
      join ${nodes} n on n.tenant_id = k.tenant_id and n.id = k.target_id and n.status <> 'dismissed'
      where k.tenant_id = ${tenantId} and k.source_id = f.id
      order by k.weight desc nulls last, k.target_id
      limit ${perNode}
    ) l`)) as unknown as { rows: Array<{ source: string; target: string; weight: number }> };
  for (const r of result.rows) out.get(r.source)!.push({ target: r.target, weight: Number(r.weight) });
  for (const list of out.values())
    list.sort((a, b) => b.weight - a.weight || (a.target < b.target ? -1 : a.target > b.target ? 1 : 0));
  return out;
}

/** Every link row with both ends among `ids` (both directions: A→B and B→A). */
export function edgesAmongFromDb(db: DbOrTx, tenantId: string, ids: string[]): Promise<EdgeRow[]> {
  if (ids.length === 0) return Promise.resolve([]);
  return db
    .select({ source: links.sourceId, target: links.targetId, type: links.type, weight: links.weight })
    .from(links)
    .where(and(eq(links.tenantId, tenantId), inArray(links.sourceId, ids), inArray(links.targetId, ids)));
}
