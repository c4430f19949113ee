import type { StoredNode } from '../store/nodes';

/** One entry of a tenant's change log: what a graph-view cache needs to follow a write. */
export type Change =
  | { k: 'node'; id: string; title: string; status: string; para: string[] }
  | { k: 'del'; id: string }
  | { k: 'links'; id: string; set: Array<{ t: string; type: string; w: number }>; removed: string[] };

/** The change-log entry of a node's write (created, edited, assigned, validated). */
export const nodeChange = (n: StoredNode): Change => ({
  k: 'node',
  id: n.id,
  title: n.title,
  status: n.status,
  para: n.paraItemIds,
});
