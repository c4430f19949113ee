import {
  conflict,
  isId,
  notFound,
  TOPICS,
  type CreateParaItemInput,
  type ParaItem,
  type ParaItemChange,
  type ParaItemEvent,
  type UpdateParaItemInput,
} from '@kg/contracts';
import { enqueueEvent, newEventId } from '@kg/bus';
import { isoOrNull, iso, newId, type Tx } from '@kg/db';
import {
  findItem,
  insertItem,
  listItems,
  lockTenantItems,
  slugsLike,
  updateItem,
  type Category,
  type ItemFilter,
  type ItemPatch,
  type ItemRow,
} from '../store/items';
import { outbox } from '../store/schema';
import type { ParaContext } from './context';
import { firstFreeSlug, slugBase } from './slug';

export const CATEGORIES: Category[] = ['projects', 'areas', 'resources'];

export const toItem = (r: ItemRow): ParaItem => ({
  id: r.id,
  category: r.category,
  label: r.label,
  description: r.description,
  slug: r.slug,
  status: r.status,
  created_at: iso(r.createdAt),
  updated_at: iso(r.updatedAt),
  completed_at: isoOrNull(r.completedAt),
  archived_at: isoOrNull(r.archivedAt),
});

/**
 * Writes a para.item.changed into the outbox, inside the transaction of the item's write.
 * `version` is the item's change counter as the write left it (contracts ParaItemEvent).
 */
export function itemChanged(tx: Tx, row: ItemRow, change: Exclude<ParaItemChange, 'deleted'>, now: Date) {
  const event: ParaItemEvent = {
    id: newEventId(),
    type: 'para.item.changed',
    tenant_id: row.tenantId,
    occurred_at: now.toISOString(),
    version: row.version,
    data: { change, item_id: row.id, item: toItem(row) },
  };
  return enqueueEvent(tx, outbox, TOPICS.paraItems, event);
}

/**
 * Runs one write of a tenant's PARA items in a transaction holding the tenant's PARA lock;
 * the outbox relay is woken once it has committed (its events are in the outbox), and the
 * tenant's view token changes before the write is answered.
 */
export async function tenantWrite<T>(ctx: ParaContext, tenantId: string, fn: (tx: Tx) => Promise<T>): Promise<T> {
  const result = await ctx.db.transaction(async (tx) => {
    await lockTenantItems(tx, tenantId);
    return fn(tx);
  });
  ctx.afterCommit();
  await ctx.viewsChanged?.(tenantId);
  return result;
}

export async function freeSlug(tx: Tx, tenantId: string, category: Category, label: string): Promise<string> {
  const base = slugBase(label);
  return firstFreeSlug(base, await slugsLike(tx, tenantId, category, base));
}

/** An item of the tenant, locked for update; malformed, unknown and other tenants' ids are all 404. */
export async function lockedItem(tx: Tx, tenantId: string, id: string): Promise<ItemRow> {
  const row = isId('para', id) ? await findItem(tx, tenantId, id, true) : null;
  if (!row) throw notFound('PARA item');
  return row;
}

export async function getItem(ctx: ParaContext, tenantId: string, id: string): Promise<ParaItem> {
  const row = isId('para', id) ? await findItem(ctx.db, tenantId, id) : null;
  if (!row) throw notFound('PARA item');
  return toItem(row);
}

export async function listParaItems(ctx: ParaContext, tenantId: string, filter: ItemFilter): Promise<ParaItem[]> {
  return (await listItems(ctx.db, tenantId, filter)).map(toItem);
}

/** GET /para/tree: every item, grouped by category in the order projects, areas, resources. */
export async function paraTree(ctx: ParaContext, tenantId: string) {
  const all = await listItems(ctx.db, tenantId);
  return {
    categories: CATEGORIES.map((category) => ({
      category,
      items: all.filter((r) => r.category === category).map(toItem),
    })),
  };
}

/**
 * Creates an item with the first free slug of its label in its category (`my-label`, `my-label-2`, …),
 * and its para.item.changed (`created`).
 */
export async function createItem(ctx: ParaContext, tenantId: string, input: CreateParaItemInput): Promise<ItemRow> {
  return tenantWrite(ctx, tenantId, async (tx) => {
    const row = await insertItem(tx, {
      id: newId('para'),
      tenantId,
      category: input.category,
      label: input.label,
      description: input.description ?? '',
      slug: await freeSlug(tx, tenantId, input.category, input.label),
    });
    await itemChanged(tx, row, 'created', ctx.now());
    return row;
  });
}

/**
 * A change of an item. One that archives or restores it sets `associationsPending` and
 * bumps `statusVersion`: its node associations must then follow (domain/associations.ts).
 */
export interface Transition {
  patch: ItemPatch;
}

const NONE: Transition = { patch: {} };

/** Archive: any status to `archived`, remembering the one to restore. Idempotent. */
export function archiveTransition(item: ItemRow, now: Date): Transition {
  if (item.status === 'archived') return NONE;
  return {
    patch: {
      status: 'archived',
      restoreStatus: item.status,
      archivedAt: now,
      associationsPending: true,
      statusVersion: item.statusVersion + 1,
    },
  };
}

/** Unarchive: back to the status the item had when archived. Idempotent (no-op unless archived). */
export function unarchiveTransition(item: ItemRow): Transition {
  if (item.status !== 'archived') return NONE;
  return {
    patch: {
      status: item.restoreStatus ?? 'active',
      restoreStatus: null,
      archivedAt: null,
      associationsPending: true,
      statusVersion: item.statusVersion + 1,
    },
  };
}

/** Complete: projects only; an archived project must be unarchived first. Idempotent on a completed one. */
export function completeTransition(item: ItemRow, now: Date): Transition {
  if (item.category !== 'projects') throw conflict('Only projects can be completed');
  if (item.status === 'archived') throw conflict('Unarchive the project before completing it');
  if (item.status === 'completed') return NONE;
  return { patch: { status: 'completed', completedAt: now } };
}

/** Undo-complete: projects only; back to active. Idempotent on an active one. */
export function undoCompleteTransition(item: ItemRow): Transition {
  if (item.category !== 'projects') throw conflict('Only projects can be completed or un-completed');
  if (item.status === 'archived') throw conflict('Unarchive the project before changing its completion');
  if (item.status === 'active') return NONE;
  return { patch: { status: 'active', completedAt: null } };
}

/**
 * PATCH status: `archived` archives; `active` unarchives an archived item (to the status
 * it had) and then, for a completed project, undoes the completion.
 */
function statusTransition(item: ItemRow, status: 'active' | 'archived', now: Date): Transition {
  if (status === 'archived') return archiveTransition(item, now);
  if (item.status === 'archived') {
    const restored = unarchiveTransition(item);
    return restored.patch.status === 'completed'
      ? { patch: { ...restored.patch, status: 'active', completedAt: null } }
      : restored;
  }
  if (item.status === 'completed') return undoCompleteTransition(item);
  return NONE;
}

/**
 * PATCH /para/:id: label, description, status. A label change keeps the slug (links
 * and bookmarks that use it stay valid) unless `regenerate_slug` is true.
 */
export async function patchTransition(
  tx: Tx,
  item: ItemRow,
  patch: UpdateParaItemInput,
  now: Date,
): Promise<Transition> {
  const label = patch.label ?? item.label;
  const fields: ItemPatch = {
    ...(patch.label !== undefined ? { label } : {}),
    ...(patch.description !== undefined ? { description: patch.description } : {}),
  };
  if (patch.regenerate_slug) {
    const base = slugBase(label);
    const taken = (await slugsLike(tx, item.tenantId, item.category, base)).filter((s) => s !== item.slug);
    fields.slug = firstFreeSlug(base, taken);
  }
  const status = patch.status ? statusTransition(item, patch.status, now) : NONE;
  return { patch: { ...fields, ...status.patch } };
}

/**
 * Applies a transition (always a write: updated_at moves, like every successful PATCH) and
 * writes its para.item.changed: `archived` when it archived the item, `updated` otherwise.
 */
export async function applyTransition(tx: Tx, ctx: ParaContext, item: ItemRow, t: Transition): Promise<ItemRow> {
  const now = ctx.now();
  const updated = await updateItem(tx, item.tenantId, item.id, t.patch, now);
  if (!updated) throw notFound('PARA item');
  const archived = updated.status === 'archived' && item.status !== 'archived';
  await itemChanged(tx, updated, archived ? 'archived' : 'updated', now);
  return updated;
}
