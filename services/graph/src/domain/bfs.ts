import quickselect from 'quickselect';

/**
 * Breadth-first neighbourhood of a seed, bounded by `maxNodes`, written once against
 * a neighbour loader so the same rules run over SQL (the service) and over an
 * in-memory adjacency list (the benchmark's lower bound).
 *
 * Rules (docs/API.md, "Graph views"):
 * - each hop considers every link from the previous hop to a node not yet in the result;
 *   a node reachable from several parents keeps its strongest link (then lowest parent id);
 * - when the bound bites, the candidates kept are those with the highest link weight,
 *   then the lowest node id; the rest are cut and expansion stops there;
 * - `frontier` = nodes of the deepest loaded hop that still have neighbours outside the
 *   result, plus the parents of nodes cut by the bound.
 */

export interface NeighbourEdge {
  target: string;
  weight: number;
}

/** Neighbours of each id, strongest first (weight desc, target asc), at most `perNode` each. */
export type NeighbourLoader = (ids: string[], perNode: number) => Promise<Map<string, NeighbourEdge[]>>;

export interface BfsResult {
  /** Node id → hop (0 for the seed), in discovery order. */
  depths: Map<string, number>;
  /** Parents of candidates cut by `maxNodes`. */
  cutParents: Set<string>;
  /** The deepest hop that holds nodes. */
  deepest: number;
}

interface Candidate {
  target: string;
  weight: number;
  parent: string;
}

const byStrength = (a: Candidate, b: Candidate) =>
  b.weight - a.weight || (a.target < b.target ? -1 : a.target > b.target ? 1 : 0);

export async function boundedBfs(
  seed: string,
  depth: number,
  maxNodes: number,
  load: NeighbourLoader,
): Promise<BfsResult> {
  const depths = new Map<string, number>([[seed, 0]]);
  const cutParents = new Set<string>();
  let frontier = [seed];
  let deepest = 0;
  for (let hop = 1; hop <= depth && frontier.length > 0; hop++) {
    const room = maxNodes - depths.size;
    if (room <= 0) break;
    const adjacency = await load(frontier, room + depths.size);
    const best = new Map<string, Candidate>();
    for (const parent of frontier) {
      for (const edge of adjacency.get(parent) ?? []) {
        if (depths.has(edge.target)) continue;
        const seen = best.get(edge.target);
        if (!seen || edge.weight > seen.weight || (edge.weight === seen.weight && parent < seen.parent)) {
          best.set(edge.target, { target: edge.target, weight: edge.weight, parent });
        }
      }
    }
    const ranked = [...best.values()];
    // Only the `room` strongest are kept (and ordered): select them first, then sort those alone;
    // a depth-3 hop can weigh thousands of candidates against a few hundred places.
    if (ranked.length > room) quickselect(ranked, room - 1, 0, ranked.length - 1, byStrength);
    const kept = ranked.slice(0, room).sort(byStrength);
    for (let i = room; i < ranked.length; i++) cutParents.add(ranked[i]!.parent);
    for (const c of kept) depths.set(c.target, hop);
    if (kept.length > 0) deepest = hop;
    frontier = kept.map((c) => c.target);
    if (ranked.length > room) break;
  }
  return { depths, cutParents, deepest };
}

/**
 * Nodes of the deepest hop with neighbours outside the result (their connection count
 * exceeds their links inside it), plus parents of cut nodes; sorted by id.
 */
export function frontierOf(
  result: BfsResult,
  connectionCount: (id: string) => number,
  linksInside: (id: string) => number,
): string[] {
  const frontier = new Set(result.cutParents);
  for (const [id, d] of result.depths) {
    if (d === result.deepest && connectionCount(id) > linksInside(id)) frontier.add(id);
  }
  return [...frontier].sort();
}
