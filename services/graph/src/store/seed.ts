import { and, asc, desc, eq, inArray, sql } from 'drizzle-orm';
import type { DbOrTx } from '@kg/db';
import type { BfsResult } from '../domain/bfs';
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

/** Every link row with both ends among `ids` (both directions: A→B and B→A). */
export function edgesAmongFromDb(db: DbOrTx, tenantId: string, ids: string[]): Promise<EdgeRow[]> {
  if (ids.length === 0) return Promise.resolve([]);
  return db
    .select({ source: links.sourceId, target: links.targetId, type: links.type, weight: links.weight })
    .from(links)
    .where(and(eq(links.tenantId, tenantId), inArray(links.sourceId, ids), inArray(links.targetId, ids)));
}

const textArray = (ids: string[]) =>
  sql`array[${sql.join(
    ids.map((id) => sql`${id}`),
    sql`, `,
  )}]::text[]`;

/**
 * boundedBfs (domain/bfs.ts) with each hop ranked inside the database: per frontier node its
 * `room + seen` strongest links to visible nodes (as the memory loader gives), the strongest
 * link per new node (then the lowest parent), the first `room` by weight then id, and the
 * parents of the rest. One statement per hop returns at most `room` rows plus those parents,
 * instead of every candidate link.
 */
export async function boundedBfsFromDb(
  db: DbOrTx,
  tenantId: string,
  seed: string,
  depth: number,
  maxNodes: number,
): Promise<BfsResult> {
  const depths = new Map<string, number>([[seed, 0]]);
  const cutParents = new Set<string>();
  let frontier = [seed];
  let deepest = 0;
  for (let hop = 1; hop <= depth && frontier.length > 0; hop++) {
    const room = maxNodes - depths.size;
    if (room <= 0) break;
    const perNode = room + depths.size;
    const result = (await db.execute(sql`
      with cand as (
        select f.id as parent, l.target_id as target, l.weight
        from unnest(${textArray(frontier)}) as f(id)
        cross join lateral (
          select k.target_id, k.weight
          from ${links} k
          join ${nodes} n on n.tenant_id = k.tenant_id and n.id = k.target_id and n.status <> 'dismissed'
          where k.tenant_id = ${tenantId} and k.source_id = f.id
          order by k.weight desc nulls last, k.target_id
          limit ${perNode}
        ) l
        where l.target_id not in (select unnest(${textArray([...depths.keys()])}))
      ),
      best as (
        select distinct on (target) target, weight, parent
        from cand
        order by target, weight desc, parent collate "C"
      ),
      ranked as (
        select target, weight, parent,
          row_number() over (order by weight desc, target collate "C") as r,
          count(*) over () as total
        from best
      )
      select target, weight, parent, r, total from ranked where r <= ${room}
      union all
      select null, null, parent, null, null from (select distinct parent from ranked where r > ${room}) c
    `)) as unknown as {
      rows: Array<{
        target: string | null;
        weight: number | null;
        parent: string;
        r: number | null;
        total: number | null;
      }>;
    };
    const kept = result.rows.filter((row) => row.target !== null).sort((a, b) => Number(a.r) - Number(b.r));
    for (const row of result.rows) if (row.target === null) cutParents.add(row.parent);
    for (const row of kept) depths.set(row.target!, hop);
    if (kept.length > 0) deepest = hop;
    frontier = kept.map((row) => row.target!);
    if (kept.length > 0 && Number(kept[0]!.total) > room) break;
  }
  return { depths, cutParents, deepest };
}
