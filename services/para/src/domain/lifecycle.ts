import type { Identity, ParaItem, UpdateParaItemInput } from '@kg/contracts';
import type { Tx } from '@kg/db';
import type { ItemRow } from '../store/items';
import { propagateForRequest } from './associations';
import type { ParaContext } from './context';
import {
  applyTransition,
  archiveTransition,
  completeTransition,
  lockedItem,
  patchTransition,
  tenantWrite,
  toItem,
  unarchiveTransition,
  undoCompleteTransition,
  type Transition,
} from './items';

type Make = (tx: Tx, item: ItemRow, now: Date) => Transition | Promise<Transition>;

/**
 * One lifecycle step of an item: under the tenant's PARA lock, compute the transition
 * and apply it. A no-op transition writes nothing (archive of an archived item, …)
 * unless `alwaysWrite` (PATCH is always a write).
 */
async function step(
  ctx: ParaContext,
  identity: Identity,
  id: string,
  make: Make,
  alwaysWrite = false,
): Promise<ParaItem> {
  const row = await tenantWrite(ctx, identity.tenantId, async (tx) => {
    const item = await lockedItem(tx, identity.tenantId, id);
    const t = await make(tx, item, ctx.now());
    if (!alwaysWrite && Object.keys(t.patch).length === 0) return item;
    return applyTransition(tx, ctx, item, t);
  });
  // Also when this request changed nothing: a repeated archive finishes a half-done one.
  if (row.associationsPending) await propagateForRequest(ctx, identity, row);
  return toItem(row);
}

export const archiveItem = (ctx: ParaContext, identity: Identity, id: string) =>
  step(ctx, identity, id, (_tx, item, now) => archiveTransition(item, now));

export const unarchiveItem = (ctx: ParaContext, identity: Identity, id: string) =>
  step(ctx, identity, id, (_tx, item) => unarchiveTransition(item));

export const completeItem = (ctx: ParaContext, identity: Identity, id: string) =>
  step(ctx, identity, id, (_tx, item, now) => completeTransition(item, now));

export const undoCompleteItem = (ctx: ParaContext, identity: Identity, id: string) =>
  step(ctx, identity, id, (_tx, item) => undoCompleteTransition(item));

export const patchItem = (ctx: ParaContext, identity: Identity, id: string, patch: UpdateParaItemInput) =>
  step(ctx, identity, id, (tx, item, now) => patchTransition(tx, item, patch, now), true);
