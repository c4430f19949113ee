import { and, eq, inArray } from 'drizzle-orm';
import type { DbOrTx } from '@kg/db';
import { items } from './schema';

/** PARA items of one tenant among `ids`; ids of other tenants or unknown ids are simply absent. */
export async function findItems(db: DbOrTx, tenantId: string, ids: string[]) {
  if (ids.length === 0) return [];
  return db
    .select({ id: items.id, category: items.category, status: items.status })
    .from(items)
    .where(and(eq(items.tenantId, tenantId), inArray(items.id, ids)));
}
