import type { Identity } from '@kg/contracts';
import type { GraphContext } from './context';

export interface Placement {
  para_category: 'projects' | 'areas' | 'resources' | null;
  para_item_id: string | null;
}

const NONE: Placement = { para_category: null, para_item_id: null };

/**
 * A node's PARA placement for graph views: its first assignment (in the order of its
 * `para_item_ids`) whose item is active; null when it has none. Items are resolved
 * with the PARA service, 100 ids per call, once per view.
 */
export async function placements(
  ctx: GraphContext,
  identity: Identity,
  nodes: Array<{ id: string; paraItemIds: string[] }>,
): Promise<Map<string, Placement>> {
  const ids = [...new Set(nodes.flatMap((n) => n.paraItemIds))];
  const active = new Map<string, Placement['para_category']>();
  for (let i = 0; i < ids.length; i += 100) {
    const { items } = await ctx.para.as(identity).items.resolve({ ids: ids.slice(i, i + 100) });
    for (const item of items) if (item.status === 'active') active.set(item.id, item.category);
  }
  const out = new Map<string, Placement>();
  for (const n of nodes) {
    const first = n.paraItemIds.find((id) => active.has(id));
    out.set(n.id, first ? { para_category: active.get(first)!, para_item_id: first } : NONE);
  }
  return out;
}
