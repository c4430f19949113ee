import { and, asc, eq, inArray, sql } from 'drizzle-orm';
import type { DbOrTx } from '@kg/db';
import { columns } from './nodes';
import { nodeParaItems, nodes, paraItemVersions } from './schema';

export type AssignmentRow = typeof nodeParaItems.$inferSelect;
/** What a node's answer shows of each assignment. */
export type NodeAssignment = Pick<AssignmentRow, 'paraItemId' | 'state' | 'assignedBy' | 'score' | 'assignedAt'>;
export const USER = 'user';

/**
 * A node's assignments as one JSON column of the node's own row (position order): a point
 * read is one statement, not two (each costs ~0.4–0.5 ms of CPU on PGlite).
 */
const assignmentsColumn = sql<Array<Omit<NodeAssignment, 'assignedAt'> & { assignedAt: string }>>`coalesce((
  select json_agg(json_build_object('paraItemId', a.para_item_id, 'state', a.state, 'assignedBy', a.assigned_by,
    'score', a.score, 'assignedAt', a.assigned_at) order by a.position)
  from ${nodeParaItems} a where a.tenant_id = ${nodes.tenantId} and a.node_id = ${nodes.id}), '[]'::json)`;

/** The node with its assignments (active and archived), in one statement; null when the tenant has no such node. */
export async function findNodeWithAssignments(db: DbOrTx, tenantId: string, id: string) {
  const [row] = await db
    .select({ ...columns, assignments: assignmentsColumn })
    .from(nodes)
    .where(and(eq(nodes.tenantId, tenantId), eq(nodes.id, id)));
  if (!row) return null;
  const { assignments, ...node } = row;
  const parsed = typeof assignments === 'string' ? (JSON.parse(assignments) as typeof assignments) : assignments;
  return { node, assignments: parsed.map((a): NodeAssignment => ({ ...a, assignedAt: new Date(a.assignedAt) })) };
}

/** The assignments of each of `nodeIds` (active and archived), in position order. */
export async function assignmentsOf(
  db: DbOrTx,
  tenantId: string,
  nodeIds: string[],
): Promise<Map<string, AssignmentRow[]>> {
  const out = new Map<string, AssignmentRow[]>(nodeIds.map((id) => [id, []]));
  if (nodeIds.length === 0) return out;
  const rows = await db
    .select()
    .from(nodeParaItems)
    .where(and(eq(nodeParaItems.tenantId, tenantId), inArray(nodeParaItems.nodeId, nodeIds)))
    .orderBy(asc(nodeParaItems.nodeId), asc(nodeParaItems.position));
  for (const r of rows) out.get(r.nodeId)?.push(r);
  return out;
}

/**
 * Makes the node's assignments exactly `ids`, in that order: kept ones keep their state,
 * author and score (only their position follows the list); new ones are a person's and
 * active; absent ones, active or archived, are removed.
 */
export async function replaceAssignments(
  tx: DbOrTx,
  tenantId: string,
  nodeId: string,
  ids: string[],
  now: Date,
): Promise<void> {
  const where = and(eq(nodeParaItems.tenantId, tenantId), eq(nodeParaItems.nodeId, nodeId));
  const existing = new Set(
    (await tx.select({ id: nodeParaItems.paraItemId }).from(nodeParaItems).where(where)).map((r) => r.id),
  );
  const gone = [...existing].filter((id) => !ids.includes(id));
  if (gone.length) await tx.delete(nodeParaItems).where(and(where, inArray(nodeParaItems.paraItemId, gone)));
  for (const [position, paraItemId] of ids.entries()) {
    if (existing.has(paraItemId)) {
      await tx
        .update(nodeParaItems)
        .set({ position })
        .where(and(where, eq(nodeParaItems.paraItemId, paraItemId)));
    } else {
      await tx
        .insert(nodeParaItems)
        .values({ tenantId, nodeId, paraItemId, position, assignedBy: USER, assignedAt: now });
    }
  }
}

/** Moves every association of an item from one state to the other; returns the nodes touched. */
export async function setItemState(
  tx: DbOrTx,
  tenantId: string,
  paraItemId: string,
  from: AssignmentRow['state'],
  to: AssignmentRow['state'],
  now: Date,
): Promise<string[]> {
  const rows = await tx
    .update(nodeParaItems)
    .set({ state: to, archivedAt: to === 'archived' ? now : null })
    .where(
      and(
        eq(nodeParaItems.tenantId, tenantId),
        eq(nodeParaItems.paraItemId, paraItemId),
        eq(nodeParaItems.state, from),
      ),
    )
    .returning({ nodeId: nodeParaItems.nodeId });
  return rows.map((r) => r.nodeId);
}

/**
 * Copies the active assignments of `nodeIds` into `nodes.para_item_ids` (position order);
 * returns the updated rows' display fields for the change log and events.
 */
export async function syncActiveIds(tx: DbOrTx, tenantId: string, nodeIds: string[]) {
  if (nodeIds.length === 0) return [];
  return tx
    .update(nodes)
    .set({
      paraItemIds: sql`coalesce((select array_agg(a.para_item_id order by a.position) from ${nodeParaItems} a
        where a.tenant_id = ${nodes.tenantId} and a.node_id = ${nodes.id} and a.state = 'active'), '{}'::text[])`,
    })
    .where(and(eq(nodes.tenantId, tenantId), inArray(nodes.id, nodeIds)))
    .returning(columns);
}

/**
 * Records `statusVersion` as the last command applied to the item's associations, if it
 * is newer than the one recorded (or none is). False for a late or repeated command: the
 * caller then changes nothing. Atomic (one upsert), inside the command's transaction.
 */
export async function claimItemVersion(
  tx: DbOrTx,
  tenantId: string,
  paraItemId: string,
  statusVersion: number,
  now: Date,
): Promise<boolean> {
  const rows = await tx
    .insert(paraItemVersions)
    .values({ tenantId, paraItemId, statusVersion, updatedAt: now })
    .onConflictDoUpdate({
      target: [paraItemVersions.tenantId, paraItemVersions.paraItemId],
      set: { statusVersion, updatedAt: now },
      setWhere: sql`${paraItemVersions.statusVersion} < ${statusVersion}`,
    })
    .returning({ statusVersion: paraItemVersions.statusVersion });
  return rows.length > 0;
}
