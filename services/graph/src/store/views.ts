import { and, eq, inArray, sql } from 'drizzle-orm';
import type { DbOrTx } from '@kg/db';
import { links, nodes } from './schema';

/** Matches the links indexes (`weight DESC NULLS LAST`), so ordered reads walk the index. */
export const weightDesc = sql`${links.weight} desc nulls last`;
const visible = sql`${nodes.status} <> 'dismissed'`;

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
    .select({
      id: nodes.id,
      title: nodes.title,
      paraItemIds: nodes.paraItemIds,
      connectionCount: nodes.connectionCount,
    })
    .from(nodes)
    .where(and(eq(nodes.tenantId, tenantId), inArray(nodes.id, ids), visible));
}

export interface EdgeRow {
  source: string;
  target: string;
  type: string;
  weight: number;
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
  const keyset = after
    ? sql`and (${links.weight} < ${after.weight} or (${links.weight} = ${after.weight} and ${there} > ${after.id}))`
    : sql``;
  return db
    .select({ source: links.sourceId, target: links.targetId, type: links.type, weight: links.weight })
    .from(links)
    .innerJoin(nodes, and(eq(nodes.tenantId, links.tenantId), eq(nodes.id, there), visible))
    .where(sql`${links.tenantId} = ${tenantId} and ${here} = ${nodeId} ${keyset}`)
    .orderBy(weightDesc, there)
    .limit(limit + 1);
}
