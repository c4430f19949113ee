import { describe, expect, it } from 'vitest';
import { seedTree } from './graph-tree.ts';

const node = (id: string) => ({
  id,
  title: id.toUpperCase(),
  para_category: null,
  para_item_id: null,
  connection_count: 0,
});
const edge = (source: string, target: string, weight: number) => ({ source, target, link_type: 'related', weight });

describe('seedTree', () => {
  it('hangs each node under its strongest parent one hop closer, strongest first', () => {
    const lines = seedTree({
      seed_id: 's',
      nodes: ['s', 'a', 'b', 'c'].map(node),
      edges: [edge('a', 's', 0.5), edge('b', 's', 0.9), edge('a', 'c', 0.3), edge('b', 'c', 0.8), edge('a', 'b', 1)],
      frontier_ids: ['c'],
      meta: { node_count: 4, edge_count: 5, depth: 2 },
    });
    expect(
      lines.map((l) => `${l.prefix}${l.node.title}${l.via ? ` ${l.via.weight}` : ''}${l.frontier ? ' …' : ''}`),
    ).toEqual(['S', '├─ B 0.9', '│  └─ C 0.8 …', '└─ A 0.5']);
  });
  it('an empty view has no lines', () => {
    expect(
      seedTree({
        seed_id: null,
        nodes: [],
        edges: [],
        frontier_ids: [],
        meta: { node_count: 0, edge_count: 0, depth: 1 },
      }),
    ).toEqual([]);
  });
});
