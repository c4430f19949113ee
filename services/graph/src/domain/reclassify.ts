import type { Tx } from '@kg/db';
import { countCandidates, insertAutomatic, scoreCandidates } from '../store/reclassify';
import { syncActiveIds } from '../store/assignments';
import { recordWrite } from '../store/stats';
import type { GraphContext } from './context';
import { nodeUpdated } from './events';
import { nodeChange } from './change';
import { tenantWrite } from './write';

/** Who automatic assignments are recorded as: reclassification, and a bookmark import's folder. */
export const RECLASSIFY = 'system:reclassify';
export const IMPORT = 'system:import';

export async function orphanPage(
  ctx: GraphContext,
  tenantId: string,
  input: { after: string | null; limit: number; items: Array<{ id: string; text: string }> },
) {
  const nodes = await scoreCandidates(ctx.db, tenantId, input.after, input.limit, input.items);
  return { nodes, next: nodes.length === input.limit ? nodes.at(-1)!.id : null };
}

export const orphanCount = (ctx: GraphContext, tenantId: string) => countCandidates(ctx.db, tenantId);

/**
 * Records automatic assignments (author `system:reclassify` with their score, or `system:import`
 * without one) on nodes that are still unassigned and not dismissed; idempotent, so a job that
 * resumes a batch, or a capture's re-run, assigns nothing twice and never moves a placed node.
 */
export async function autoAssign(
  ctx: GraphContext,
  tenantId: string,
  rows: Array<{ node_id: string; para_item_id: string; score: number | null }>,
  by: typeof RECLASSIFY | typeof IMPORT = RECLASSIFY,
): Promise<number> {
  if (rows.length === 0) return 0;
  return tenantWrite(ctx, tenantId, async (tx: Tx) => {
    const assigned = await insertAutomatic(tx, tenantId, rows, by, ctx.now());
    for (const node of await syncActiveIds(tx, tenantId, assigned)) {
      const version = await recordWrite(tx, tenantId, {}, nodeChange(node));
      await nodeUpdated(tx, node, ['para_item_ids'], version, ctx.now());
    }
    return assigned.length;
  });
}
