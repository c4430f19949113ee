import { and, eq, inArray, or, sql } from 'drizzle-orm';
import type { DbOrTx } from '@kg/db';
import { links, nodes } from './schema';

export interface LinkRow {
  targetId: string;
  type: string;
  weight: number;
}

/** A node's links (its outgoing rows; each has a mirror row), strongest first. */
export function linksOf(db: DbOrTx, tenantId: string, sourceId: string): Promise<LinkRow[]> {
  return db
    .select({ targetId: links.targetId, type: links.type, weight: links.weight })
    .from(links)
    .where(and(eq(links.tenantId, tenantId), eq(links.sourceId, sourceId)))
    .orderBy(sql`${links.weight} desc nulls last`, links.targetId);
}

/** The outgoing link rows of `sourceIds` (every link has a mirror row, so these are all their links). */
export function linksOfMany(db: DbOrTx, tenantId: string, sourceIds: string[]) {
  if (sourceIds.length === 0) return Promise.resolve([]);
  return db
    .select({ sourceId: links.sourceId, targetId: links.targetId, type: links.type, weight: links.weight })
    .from(links)
    .where(and(eq(links.tenantId, tenantId), inArray(links.sourceId, sourceIds)));
}

/** Removes the links between `sourceId` and each of `targets`, in both directions. */
export async function unlink(db: DbOrTx, tenantId: string, sourceId: string, targets: string[]): Promise<void> {
  if (targets.length === 0) return;
  await db
    .delete(links)
    .where(
      and(
        eq(links.tenantId, tenantId),
        or(
          and(eq(links.sourceId, sourceId), inArray(links.targetId, targets)),
          and(inArray(links.sourceId, targets), eq(links.targetId, sourceId)),
        ),
      ),
    );
}

/** Writes links and their mirrors (insert or update type and weight). */
export async function upsertLinks(db: DbOrTx, tenantId: string, sourceId: string, rows: LinkRow[]): Promise<void> {
  if (rows.length === 0) return;
  const values = rows.flatMap((r) => [
    { tenantId, sourceId, targetId: r.targetId, type: r.type, weight: r.weight },
    { tenantId, sourceId: r.targetId, targetId: sourceId, type: r.type, weight: r.weight },
  ]);
  await db
    .insert(links)
    .values(values)
    .onConflictDoUpdate({
      target: [links.tenantId, links.sourceId, links.targetId],
      set: { type: sql`excluded.type`, weight: sql`excluded.weight` },
    });
}

/** Recomputes connection_count (distinct neighbours) of the given nodes. */
export async function recountConnections(db: DbOrTx, tenantId: string, ids: string[]): Promise<void> {
  if (ids.length === 0) return;
  await db
    .update(nodes)
    .set({
      connectionCount: sql`(select count(*)::int from ${links} where ${links.tenantId} = ${tenantId} and ${links.sourceId} = ${nodes.id})`,
    })
    .where(and(eq(nodes.tenantId, tenantId), inArray(nodes.id, ids)));
}

/** Removes every link of a node in both directions; returns its former neighbours. */
export async function detachNode(db: DbOrTx, tenantId: string, id: string): Promise<string[]> {
  const removed = await db
    .delete(links)
    .where(and(eq(links.tenantId, tenantId), or(eq(links.sourceId, id), eq(links.targetId, id))))
    .returning({ sourceId: links.sourceId, targetId: links.targetId });
  return [...new Set(removed.map((r) => (r.sourceId === id ? r.targetId : r.sourceId)))].sort();
}

/** One-hop neighbours with node details, strongest link first, then id. */
export function related(db: DbOrTx, tenantId: string, id: string, limit: number) {
  return db
    .select({ id: nodes.id, title: nodes.title, summary: nodes.summary, relationshipType: links.type })
    .from(links)
    .innerJoin(nodes, and(eq(nodes.tenantId, links.tenantId), eq(nodes.id, links.targetId)))
    .where(and(eq(links.tenantId, tenantId), eq(links.sourceId, id)))
    .orderBy(sql`${links.weight} desc nulls last`, links.targetId)
    .limit(limit);
}
