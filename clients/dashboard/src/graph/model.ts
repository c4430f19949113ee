import Graph from 'graphology';
import type { Schemas } from '../api/client';

type GraphNode = Schemas['GraphNode'];
type Edge = Schemas['Edge'];

export interface NodeAttributes {
  label: string;
  x: number;
  y: number;
  size: number;
  color: string;
  category: GraphNode['para_category'];
  connections: number;
  frontier: boolean;
}
export interface EdgeAttributes {
  size: number;
  color: string;
  linkType: string;
  weight: number;
}
export type KgGraph = Graph<NodeAttributes, EdgeAttributes>;

/** PARA colours (and their legend); nodes without a PARA item are slate. */
export const CATEGORY_COLORS: Record<string, string> = {
  projects: '#2563eb',
  areas: '#15803d',
  resources: '#c2410c',
  none: '#64748b',
};
const FRONTIER_COLORS: Record<string, string> = {
  projects: '#93c5fd',
  areas: '#86efac',
  resources: '#fdba74',
  none: '#cbd5e1',
};
const EDGE_PALETTE = ['#7c3aed', '#0891b2', '#b45309', '#be185d', '#4d7c0f', '#1d4ed8', '#9f1239', '#0f766e'];

/** A stable colour per link type (`related` is grey, the most common). */
export function edgeColor(type: string): string {
  if (type === 'related') return '#94a3b8';
  let h = 0;
  for (const ch of type) h = (h * 31 + ch.charCodeAt(0)) >>> 0;
  return EDGE_PALETTE[h % EDGE_PALETTE.length]!;
}

/** Sized by connection count, gently (square root), 3 to 18 pixels. */
export const nodeSize = (connections: number) => Math.min(18, 3 + Math.sqrt(connections) * 1.6);

export const createGraph = (): KgGraph =>
  new Graph<NodeAttributes, EdgeAttributes>({ multi: false, type: 'undirected' });

function place(
  graph: KgGraph,
  id: string,
  center: { x: number; y: number },
  index: number,
  count: number,
  radius: number,
) {
  const angle = (2 * Math.PI * index) / Math.max(1, count) + (id.length % 7) * 0.01;
  return { x: center.x + radius * Math.cos(angle), y: center.y + radius * Math.sin(angle) };
}

/**
 * Merges a view (a seed or a page of neighbours) into the graph. The first view is laid out
 * in rings by BFS depth around the seed, each ring ordered by parent so subtrees stay together;
 * later views place their new nodes in a ring around `around` (the node expanded).
 * Returns the ids added.
 */
export function mergeView(
  graph: KgGraph,
  view: { nodes: GraphNode[]; edges: Edge[]; frontier_ids?: string[] },
  around: string | null,
): string[] {
  const frontier = new Set(view.frontier_ids ?? []);
  const added = view.nodes.filter((n) => !graph.hasNode(n.id));
  const ringOf = (n: GraphNode) => (around === null ? (n.depth ?? 1) : 1);
  const rings = new Map<number, GraphNode[]>();
  for (const node of added) {
    const ring = ringOf(node);
    rings.set(ring, [...(rings.get(ring) ?? []), node]);
  }
  const center =
    around && graph.hasNode(around)
      ? { x: graph.getNodeAttribute(around, 'x'), y: graph.getNodeAttribute(around, 'y') }
      : { x: 0, y: 0 };
  const parent = new Map<string, string>();
  for (const e of view.edges) {
    if (!parent.has(e.target)) parent.set(e.target, e.source);
    if (!parent.has(e.source)) parent.set(e.source, e.target);
  }
  for (const [ring, nodes] of rings) {
    if (around === null) nodes.sort((a, b) => (parent.get(a.id) ?? '').localeCompare(parent.get(b.id) ?? ''));
    const radius = around === null ? ring * 100 : 30 + Math.sqrt(nodes.length) * 6;
    nodes.forEach((node, i) => {
      const at = ring === 0 && around === null ? center : place(graph, node.id, center, i, nodes.length, radius);
      const category = node.para_category ?? 'none';
      const isFrontier = frontier.has(node.id);
      graph.addNode(node.id, {
        label: node.title,
        ...at,
        size: nodeSize(node.connection_count),
        color: isFrontier ? FRONTIER_COLORS[category]! : CATEGORY_COLORS[category]!,
        category: node.para_category,
        connections: node.connection_count,
        frontier: isFrontier,
      });
    });
  }
  for (const edge of view.edges) {
    if (!graph.hasNode(edge.source) || !graph.hasNode(edge.target) || edge.source === edge.target) continue;
    if (graph.hasEdge(edge.source, edge.target)) continue;
    graph.addEdge(edge.source, edge.target, {
      size: 0.5 + edge.weight * 2.5,
      color: edgeColor(edge.link_type),
      linkType: edge.link_type,
      weight: edge.weight,
    });
  }
  return added.map((n) => n.id);
}

/** After expanding a frontier node it is a frontier node no more. */
export function markExpanded(graph: KgGraph, id: string) {
  if (!graph.hasNode(id) || !graph.getNodeAttribute(id, 'frontier')) return;
  const category = graph.getNodeAttribute(id, 'category') ?? 'none';
  graph.mergeNodeAttributes(id, { frontier: false, color: CATEGORY_COLORS[category]! });
}
