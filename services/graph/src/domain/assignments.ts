/**
 * Node↔PARA associations.
 *
 * Who owns them: the graph service. Every read that depends on them is a graph read
 * (`GET /nodes?para_item_id=…`, `orphan=true`, the graph views' `para_category`, the
 * node's own `para_item_ids`) and must filter and page inside one query over the node
 * table; a copy in the PARA service would need a cross-service join on every list
 * request. The PARA service only needs them to archive and restore an item's
 * associations, a rare command: it sends that command here (tRPC `assignments.*`)
 * after committing the item's status, and retries until it is confirmed. Each command
 * carries the item's `status_version` (bumped by every archive and unarchive); one that
 * is not newer than the last applied (`para_item_versions`) changes nothing. So a retry
 * changes nothing twice, and an archive and an unarchive sent at the same moment leave
 * the links as the item's final status says, whichever arrives first.
 */
import { invalid, type Identity } from '@kg/contracts';
import type { Tx } from '@kg/db';
import { claimItemVersion, setItemState, syncActiveIds, type AssignmentRow } from '../store/assignments';
import { recordWrite } from '../store/stats';
import type { GraphContext } from './context';
import { nodeUpdated } from './events';
import { nodeChange } from './change';
import { tenantWrite } from './write';

/**
 * Every id must name a PARA item of the caller's tenant (asked of the PARA service),
 * else 400 at `para_item_ids.N`. An archived item cannot be newly assigned (400); an
 * association the node already holds may be kept whatever its item's status.
 */
export async function checkAssignable(
  ctx: GraphContext,
  identity: Identity,
  ids: string[],
  held: ReadonlySet<string> = new Set(),
): Promise<string[]> {
  const unique = [...new Set(ids)];
  if (unique.length === 0) return [];
  const { items } = await ctx.para.as(identity).items.resolve({ ids: unique });
  const status = new Map(items.map((i) => [i.id, i.status]));
  const errors = ids.flatMap((id, i) => {
    const path = `para_item_ids.${i}`;
    if (!status.has(id)) return [{ path, message: 'no such PARA item' }];
    if (status.get(id) === 'archived' && !held.has(id)) return [{ path, message: 'the PARA item is archived' }];
    return [];
  });
  if (errors.length) {
    const archived = errors.some((e) => e.message !== 'no such PARA item');
    throw invalid(archived ? 'Unknown or archived PARA item' : 'Unknown PARA item', errors);
  }
  return unique;
}

/** Records the new active lists of `nodeIds` in the change log and as node.updated events. */
async function followAssignments(ctx: GraphContext, tx: Tx, tenantId: string, nodeIds: string[]) {
  for (const node of await syncActiveIds(tx, tenantId, nodeIds)) {
    const version = await recordWrite(tx, tenantId, {}, nodeChange(node));
    await nodeUpdated(tx, node, ['para_item_ids'], version, ctx.now());
  }
}

/** Moves the item's links (0 when `statusVersion` is late or repeated); returns how many nodes moved. */
async function moveItem(
  ctx: GraphContext,
  tenantId: string,
  paraItemId: string,
  statusVersion: number,
  from: AssignmentRow['state'],
  to: AssignmentRow['state'],
): Promise<number> {
  return tenantWrite(ctx, tenantId, async (tx) => {
    if (!(await claimItemVersion(tx, tenantId, paraItemId, statusVersion, ctx.now()))) return 0;
    const touched = await setItemState(tx, tenantId, paraItemId, from, to, ctx.now());
    await followAssignments(ctx, tx, tenantId, touched);
    return touched.length;
  });
}

/** The item was archived (at `statusVersion`): its active associations become archived (they stop counting). */
export const archiveItemAssignments = (
  ctx: GraphContext,
  tenantId: string,
  paraItemId: string,
  statusVersion: number,
) => moveItem(ctx, tenantId, paraItemId, statusVersion, 'active', 'archived');

/** The item was unarchived (at `statusVersion`): exactly the associations its archive archived become active again. */
export const restoreItemAssignments = (
  ctx: GraphContext,
  tenantId: string,
  paraItemId: string,
  statusVersion: number,
) => moveItem(ctx, tenantId, paraItemId, statusVersion, 'archived', 'active');
