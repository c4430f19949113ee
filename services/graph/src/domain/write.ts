import type { Tx } from '@kg/db';
import { lockTenantWrites } from '../store/stats';
import type { GraphContext } from './context';

/**
 * Runs one write of a tenant's graph: a transaction that first takes the tenant's write
 * lock; the outbox relay is woken once it has committed (its events are in the outbox), and
 * the tenant's view token changes before the write is answered.
 */
export async function tenantWrite<T>(ctx: GraphContext, tenantId: string, fn: (tx: Tx) => Promise<T>): Promise<T> {
  const result = await ctx.db.transaction(async (tx) => {
    await lockTenantWrites(tx, tenantId);
    return fn(tx);
  });
  ctx.tenantChanged?.(tenantId);
  ctx.afterCommit();
  await ctx.viewsChanged?.(tenantId);
  return result;
}
