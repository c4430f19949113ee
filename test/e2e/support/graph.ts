import { expect } from 'vitest';
import { api, createNode } from './client';

/** Creates named nodes and undirected links [a, b, weight] through the public API; returns name → id. */
export async function buildGraph(
  auth: string,
  names: string[],
  links: Array<[string, string, number]>,
): Promise<Record<string, string>> {
  const ids: Record<string, string> = {};
  for (const name of names) ids[name] = (await createNode(auth, { title: name })).id;
  // Full replacement per node: each node's request lists every link it takes part in.
  const all = new Map<string, Array<{ target_id: string; type: string; weight: number }>>();
  for (const [a, b, w] of links) {
    all.set(a, [...(all.get(a) ?? []), { target_id: ids[b]!, type: 'related', weight: w }]);
    all.set(b, [...(all.get(b) ?? []), { target_id: ids[a]!, type: 'related', weight: w }]);
  }
  for (const [name, list] of all) {
    const res = await api('PATCH', `/nodes/${ids[name]}/links`, { auth, body: { links: list } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
  }
  return ids;
}

export type SeedBody = {
  seed_id: string | null;
  nodes: Array<{
    id: string;
    title: string;
    depth: number;
    connection_count: number;
    para_category: null;
    para_item_id: null;
  }>;
  edges: Array<{ source: string; target: string; link_type: string; weight: number }>;
  frontier_ids: string[];
  meta: { node_count: number; edge_count: number; depth: number };
};

export type NeighborsBody = {
  node_id: string;
  nodes: Array<{ id: string; newly_added: boolean; connection_count: number }>;
  edges: Array<{ source: string; target: string; link_type: string; weight: number }>;
  next_cursor: string | null;
};
