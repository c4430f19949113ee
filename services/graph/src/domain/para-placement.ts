import type { Identity } from '@kg/contracts';
import type { GraphContext } from './context';

export interface Placement {
  para_category: 'projects' | 'areas' | 'resources' | null;
  para_item_id: string | null;
}

const NONE: Placement = Object.freeze({ para_category: null, para_item_id: null });

/**
 * PARA placements for a graph view: a node's placement is its first assignment (in the order
 * of its `para_item_ids`) whose item is active; none when it has none. The items of `lists`
 * are resolved with the PARA service, 100 ids per call, once per view (no call when no node
 * has an item); the answer places any node of the view by its item ids.
 */
export async function placements(
  ctx: GraphContext,
  identity: Identity,
  lists: Iterable<string[]>,
): Promise<(paraItemIds: string[]) => Placement> {
  const wanted = new Set<string>();
  for (const list of lists) for (const id of list) wanted.add(id);
  if (wanted.size === 0) return () => NONE;
  const ids = [...wanted];
  const active = new Map<string, Placement>();
  for (let i = 0; i < ids.length; i += 100) {
    const { items } = await ctx.para.as(identity).items.resolve({ ids: ids.slice(i, i + 100) });
    for (const item of items)
      if (item.status === 'active') active.set(item.id, { para_category: item.category, para_item_id: item.id });
  }
  return (paraItemIds) => {
    for (const id of paraItemIds) {
      const placement = active.get(id);
      if (placement) return placement;
    }
    return NONE;
  };
}
