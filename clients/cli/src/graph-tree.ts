import type { SeedView } from '@kg/sdk';

type GraphNode = SeedView['nodes'][number];
type Edge = SeedView['edges'][number];

export interface TreeLine {
  prefix: string;
  node: GraphNode;
  /** The link to the parent (absent for the root). */
  via?: { type: string; weight: number };
  frontier: boolean;
}

/**
 * The seed view as a tree: each node hangs under its strongest link to a node one hop
 * closer to the seed (the BFS parent), children strongest first, then by title; a link
 * between nodes that are not parent and child is not drawn (JSON has every edge).
 */
export function seedTree(view: SeedView): TreeLine[] {
  const byId = new Map(view.nodes.map((n) => [n.id, n]));
  const rootId = view.seed_id ?? view.nodes[0]?.id;
  if (!rootId || !byId.has(rootId)) return [];
  const adjacency = new Map<string, Array<{ other: string; edge: Edge }>>();
  for (const edge of view.edges) {
    for (const [a, b] of [
      [edge.source, edge.target],
      [edge.target, edge.source],
    ] as const) {
      if (!adjacency.has(a)) adjacency.set(a, []);
      adjacency.get(a)!.push({ other: b, edge });
    }
  }
  // BFS from the root; a node joins the level where it is first reached, under its strongest parent.
  const parent = new Map<string, { id: string; edge: Edge }>();
  const seen = new Set([rootId]);
  let level = [rootId];
  while (level.length) {
    const next = new Map<string, { id: string; edge: Edge }>();
    for (const id of level) {
      for (const { other, edge } of adjacency.get(id) ?? []) {
        if (seen.has(other)) continue;
        const best = next.get(other);
        if (!best || edge.weight > best.edge.weight || (edge.weight === best.edge.weight && id < best.id))
          next.set(other, { id, edge });
      }
    }
    for (const [id, p] of next) {
      seen.add(id);
      parent.set(id, p);
    }
    level = [...next.keys()];
  }
  const children = new Map<string, string[]>();
  for (const [id, p] of parent) {
    if (!children.has(p.id)) children.set(p.id, []);
    children.get(p.id)!.push(id);
  }
  const frontier = new Set(view.frontier_ids);
  const lines: TreeLine[] = [];
  const walk = (id: string, prefix: string, childPrefix: string) => {
    const p = parent.get(id);
    lines.push({
      prefix,
      node: byId.get(id)!,
      ...(p ? { via: { type: p.edge.link_type, weight: p.edge.weight } } : {}),
      frontier: frontier.has(id),
    });
    const kids = (children.get(id) ?? []).sort(
      (a, b) =>
        parent.get(b)!.edge.weight - parent.get(a)!.edge.weight ||
        byId.get(a)!.title.localeCompare(byId.get(b)!.title) ||
        a.localeCompare(b),
    );
    kids.forEach((kid, i) => {
      const last = i === kids.length - 1;
      walk(kid, childPrefix + (last ? '└─ ' : '├─ '), childPrefix + (last ? '   ' : '│  '));
    });
  };
  walk(rootId, '', '');
  // Nodes the walk did not reach (none in a well-formed view) are listed at the end, unattached.
  for (const n of view.nodes) if (!seen.has(n.id)) lines.push({ prefix: '? ', node: n, frontier: frontier.has(n.id) });
  return lines;
}
