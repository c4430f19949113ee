import { and, eq, inArray, ne, sql } from 'drizzle-orm';
import type { DbOrTx } from '@kg/db';
import { links, nodes } from './schema';

/** Matches the links indexes (`weight DESC NULLS LAST`), so ordered reads walk the index. */
export const weightDesc = sql`${links.weight} desc nulls last`;
const visible = sql`${nodes.status} <> 'dismissed'`;

/** The hub: the non-dismissed node with the most connections, ties broken by id. */
export async function hubId(db: DbOrTx, tenantId: string): Promise<string | null> {
  const [row] = await db
    .select({ id: nodes.id })
    .from(nodes)
    .where(and(eq(nodes.tenantId, tenantId), ne(nodes.status, 'dismissed')))
    .orderBy(sql`${nodes.connectionCount} desc`, nodes.id)
    .limit(1);
  return row?.id ?? null;
}

export interface ViewNode {
  id: string;
  title: string;
  paraItemIds: string[];
  connectionCount: number;
}

/** Display fields of visible (non-dismissed) nodes among `ids`. */
export function viewNodes(db: DbOrTx, tenantId: string, ids: string[]): Promise<ViewNode[]> {
  if (ids.length === 0) return Promise.resolve([]);
  return db
    .select({ id: nodes.id, title: nodes.title, paraItemIds: nodes.paraItemIds, connectionCount: nodes.connectionCount })
    .from(nodes)
    .where(and(eq(nodes.tenantId, tenantId), inArray(nodes.id, ids), visible));
}

export interface EdgeRow {
  source: string;
  target: string;
  type: string;
  weight: number;
}

/**
 * The strongest `perNode` links of each id to visible nodes (weight desc, target asc),
 * one query per BFS hop: a LATERAL walk of the (source, weight desc, target) index.
 */
export async function strongestLinks(db: DbOrTx, tenantId: string, ids: string[], perNode: number): Promise<EdgeRow[]> {
  if (ids.length === 0) return [];
  const result = (await db.execute(sql`
    select s.id as source, l.target_id as target, l.type, l.weight
    from unnest(array[${sql.join(
      ids.map((id) => sql`${id}`),
      sql`, `,
    )}]::text[]) as s(id)
    cross join lateral (
      select l.target_id, l.type, l.weight
      from ${links} l
      join ${nodes} n on n.tenant_id = l.tenant_id and n.id = l.target_id and n.status <> 'dismissed'
      where l.tenant_id = ${tenantId} and l.source_id = s.id
      order by l.weight desc nulls last, l.target_id
      limit ${perNode}
    ) l`)) as unknown as { rows: Array<{ source: string; target: string; type: string; weight: number }> };
  return result.rows.map((r) => ({ source: r.source, target: r.target, type: r.type, weight: Number(r.weight) }));
}

/** Links among a set of nodes, each bidirectional link once (source < target). */
export async function linksAmong(db: DbOrTx, tenantId: string, ids: string[]): Promise<EdgeRow[]> {
  if (ids.length < 2) return [];
  return db
    .select({ source: links.sourceId, target: links.targetId, type: links.type, weight: links.weight })
    .from(links)
    .where(and(eq(links.tenantId, tenantId), inArray(links.sourceId, ids), inArray(links.targetId, ids), sql`${links.sourceId} < ${links.targetId}`));
}

export interface Position {
  weight: number;
  id: string;
}

/**
 * One keyset page of a node's links in one direction, ordered weight desc then the
 * other end's id: `out` walks (source, weight, target), `in` walks (target, weight, source).
 * Returns up to `limit + 1` rows so the caller knows whether the direction is exhausted.
 */
export async function linkPage(
  db: DbOrTx,
  tenantId: string,
  nodeId: string,
  direction: 'out' | 'in',
  after: Position | null,
  limit: number,
): Promise<EdgeRow[]> {
  const here = direction === 'out' ? links.sourceId : links.targetId;
  const there = direction === 'out' ? links.targetId : links.sourceId;
  const keyset = after ? sql`and (${links.weight} < ${after.weight} or (${links.weight} = ${after.weight} and ${there} > ${after.id}))` : sql``;
  return db
    .select({ source: links.sourceId, target: links.targetId, type: links.type, weight: links.weight })
    .from(links)
    .innerJoin(nodes, and(eq(nodes.tenantId, links.tenantId), eq(nodes.id, there), visible))
    .where(sql`${links.tenantId} = ${tenantId} and ${here} = ${nodeId} ${keyset}`)
    .orderBy(weightDesc, there)
    .limit(limit + 1);
}
