import { unavailable, type Identity } from '@kg/contracts';
import { clearAssociationsPending, pendingAssociations, type ItemRow } from '../store/items';
import type { ParaContext } from './context';

/**
 * Archive and unarchive are two steps: (1) the item's status commits here with
 * `associations_pending = true` and its `status_version` bumped; (2) the graph service,
 * which owns the node↔item associations, is told to archive or restore them, and the flag
 * is cleared once it has confirmed that version. A crash or an unreachable graph between
 * the two leaves the flag set: repeating the request, or the sweeper
 * (`retryPendingAssociations`), sends the command again. The command carries the
 * `status_version` it follows; graph applies only a version newer than the last it
 * applied, so a repeated command changes nothing and an archive and an unarchive sent at
 * the same moment, arriving in either order, leave the links as the later one says.
 */
export async function propagateAssociations(ctx: ParaContext, identity: Identity, item: ItemRow): Promise<void> {
  const graph = ctx.graph.as(identity).assignments;
  const ref = { para_item_id: item.id, status_version: item.statusVersion };
  if (item.status === 'archived') await graph.archiveItem(ref);
  else await graph.restoreItem(ref);
  await clearAssociationsPending(ctx.db, item.tenantId, item.id, item.statusVersion);
}

/** As propagateAssociations, for a request: a failure is a 503 that a retry (or the sweeper) completes. */
export async function propagateForRequest(ctx: ParaContext, identity: Identity, item: ItemRow): Promise<void> {
  try {
    await propagateAssociations(ctx, identity, item);
  } catch (err) {
    ctx.logger.warn({ err, itemId: item.id }, 'node associations not updated yet; will retry');
    throw unavailable(
      `The item is ${item.status}, but its node associations could not be updated yet; they will follow shortly (retrying the request completes it at once)`,
    );
  }
}

/** The identity the sweeper acts with: the tenant, as the PARA service itself. */
export const systemIdentity = (tenantId: string): Identity => ({
  tenantId,
  subject: 'system:para',
  credential: { kind: 'jwt', id: 'system:para' },
});

/**
 * Sends the pending association commands of items whose last change is older than
 * `graceMs` (younger ones are still in their own request). Returns how many completed.
 */
export async function retryPendingAssociations(ctx: ParaContext, graceMs = 2000, limit = 100): Promise<number> {
  const items = await pendingAssociations(ctx.db, new Date(ctx.now().getTime() - graceMs), limit);
  let done = 0;
  for (const item of items) {
    try {
      await propagateAssociations(ctx, systemIdentity(item.tenantId), item);
      done++;
    } catch (err) {
      ctx.logger.warn({ err, itemId: item.id }, 'node associations still pending');
    }
  }
  return done;
}
