import { describe, expect, it } from 'vitest';
import { CATEGORY_COLORS, createGraph, edgeColor, markExpanded, mergeView, nodeSize } from './model';

const node = (id: string, depth: number, connections = 1, category: 'projects' | null = null) => ({
  id,
  title: id.toUpperCase(),
  para_category: category,
  para_item_id: null,
  connection_count: connections,
  depth,
});
const edge = (source: string, target: string, weight = 0.5, link_type = 'related') => ({
  source,
  target,
  link_type,
  weight,
});

describe('mergeView (graph explorer model)', () => {
  it('lays a seed out in rings by depth, the seed at the centre, frontier nodes pale', () => {
    const graph = createGraph();
    mergeView(
      graph,
      {
        nodes: [node('hub', 0, 2, 'projects'), node('a', 1), node('b', 1, 3)],
        edges: [edge('hub', 'a'), edge('hub', 'b', 1)],
        frontier_ids: ['b'],
      },
      null,
    );
    expect(graph.order).toBe(3);
    expect(graph.getNodeAttributes('hub')).toMatchObject({
      x: 0,
      y: 0,
      color: CATEGORY_COLORS.projects,
      frontier: false,
    });
    const a = graph.getNodeAttributes('a');
    expect(Math.hypot(a.x, a.y)).toBeCloseTo(100);
    expect(graph.getNodeAttribute('b', 'frontier')).toBe(true);
    expect(graph.getNodeAttribute('b', 'color')).not.toBe(CATEGORY_COLORS.none);
    expect(graph.getNodeAttribute('b', 'size')).toBe(nodeSize(3));
    expect(graph.getEdgeAttributes('hub', 'b')).toMatchObject({ weight: 1, linkType: 'related', size: 3 });
  });

  it('merges an expansion once: known nodes keep their place, new ones ring the expanded node', () => {
    const graph = createGraph();
    mergeView(
      graph,
      { nodes: [node('hub', 0), node('b', 1, 2)], edges: [edge('hub', 'b')], frontier_ids: ['b'] },
      null,
    );
    const before = graph.getNodeAttributes('b');
    const added = mergeView(
      graph,
      {
        nodes: [node('b', 0, 2), node('hub', 1), node('c', 1)],
        edges: [edge('b', 'hub'), edge('b', 'c', 1, 'supports')],
      },
      'b',
    );
    markExpanded(graph, 'b');
    expect(added).toEqual(['c']);
    expect(graph.order).toBe(3);
    expect(graph.size).toBe(2); // b–hub is not doubled by its reverse
    expect(graph.getNodeAttributes('b')).toMatchObject({
      x: before.x,
      y: before.y,
      frontier: false,
      color: CATEGORY_COLORS.none,
    });
    const c = graph.getNodeAttributes('c');
    expect(Math.hypot(c.x - before.x, c.y - before.y)).toBeLessThan(100);
    expect(graph.getEdgeAttribute('b', 'c', 'color')).toBe(edgeColor('supports'));
  });

  it('skips edges whose ends are not in the view and self-links', () => {
    const graph = createGraph();
    mergeView(graph, { nodes: [node('a', 0)], edges: [edge('a', 'zz'), edge('a', 'a')] }, null);
    expect(graph.size).toBe(0);
  });
});
