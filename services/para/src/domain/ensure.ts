/**
 * `items.ensure`: the PARA item of a label, made when the tenant has no active one. Graph asks
 * for the folders of a bookmark import (docs/API.md "Imports"), once per bookmark, often many at
 * once for one folder, so it must never make two items of one label:
 * - the label matches whatever its case and surrounding whitespace (`ensureKey`);
 * - an active item of the category with that label (the tenant's own, or one an earlier ensure
 *   made, even renamed since) is answered as it is, without a write;
 * - otherwise, under the tenant's PARA lock, the check is made again and the item inserted with
 *   its `ensureKey`, unique per tenant and category: even a write that does not hold the lock
 *   cannot add a second one (the insert does nothing and the existing item is answered).
 * An ensured item that stops being active (archived, completed) gives its key up: the next
 * ensure makes a new item. No reclassification job starts for an ensured item (it is made for
 * the imported bookmarks, not to collect other orphan nodes).
 */
import type { EnsureParaItemInput } from '@kg/contracts';
import { newId, type DbOrTx } from '@kg/db';
import { and, eq, ne } from 'drizzle-orm';
import { insertItemOnce, listItems, type ItemRow } from '../store/items';
import { items } from '../store/schema';
import type { ParaContext } from './context';
import { freeSlug, itemChanged, tenantWrite } from './items';

export const ensureKeyOf = (label: string) => label.trim().toLowerCase();

/** The active item of the category for this key: the one ensured for it first, else the oldest so labelled. */
async function activeFor(db: DbOrTx, tenantId: string, category: ItemRow['category'], key: string) {
  const active = await listItems(db, tenantId, { category, status: 'active' });
  return active.find((r) => r.ensureKey === key) ?? active.find((r) => ensureKeyOf(r.label) === key) ?? null;
}

export async function ensureItem(
  ctx: ParaContext,
  tenantId: string,
  input: EnsureParaItemInput,
): Promise<{ row: ItemRow; created: boolean }> {
  const key = ensureKeyOf(input.label);
  const found = await activeFor(ctx.db, tenantId, input.category, key);
  if (found) return { row: found, created: false };
  return tenantWrite(ctx, tenantId, async (tx) => {
    const again = await activeFor(tx, tenantId, input.category, key);
    if (again) return { row: again, created: false };
    // An item ensured for this key that is no longer active gives the key up.
    const scope = and(eq(items.tenantId, tenantId), eq(items.category, input.category), eq(items.ensureKey, key));
    await tx
      .update(items)
      .set({ ensureKey: null })
      .where(and(scope, ne(items.status, 'active')));
    const row = await insertItemOnce(tx, {
      id: newId('para'),
      tenantId,
      category: input.category,
      label: input.label,
      description: '',
      slug: await freeSlug(tx, tenantId, input.category, input.label),
      ensureKey: key,
    });
    if (!row) {
      const [winner] = await tx.select().from(items).where(scope);
      return { row: winner!, created: false };
    }
    await itemChanged(tx, row, 'created', ctx.now());
    return { row, created: true };
  });
}
