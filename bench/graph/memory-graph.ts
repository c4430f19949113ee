import type { NeighbourEdge, NeighbourLoader } from '../../services/graph/src/domain/bfs';
import type { SyntheticGraph } from './generate';

/**
 * The lower bound: the same graph as an in-memory adjacency list (CSR), each node's
 * neighbours pre-sorted by weight desc then id, so a page or a BFS hop costs nothing
 * but the walk itself.
 */
export interface MemoryGraph {
  load: NeighbourLoader;
  degree(id: string): number;
  neighbours(id: string): NeighbourEdge[];
}

export function buildMemoryGraph(g: SyntheticGraph): MemoryGraph {
  const n = g.ids.length;
  const index = new Map(g.ids.map((id, i) => [id, i]));
  const degree = new Int32Array(n);
  for (let k = 0; k < g.a.length; k++) {
    degree[g.a[k]!]!++;
    degree[g.b[k]!]!++;
  }
  const lists: NeighbourEdge[][] = Array.from({ length: n }, () => []);
  for (let k = 0; k < g.a.length; k++) {
    const w = g.weight[k]!;
    lists[g.a[k]!]!.push({ target: g.ids[g.b[k]!]!, weight: w });
    lists[g.b[k]!]!.push({ target: g.ids[g.a[k]!]!, weight: w });
  }
  for (const list of lists) list.sort((x, y) => y.weight - x.weight || (x.target < y.target ? -1 : 1));
  const of = (id: string) => lists[index.get(id) ?? -1] ?? [];
  return {
    load: async (ids, perNode) => new Map(ids.map((id) => [id, of(id).slice(0, perNode)])),
    degree: (id) => of(id).length,
    neighbours: of,
  };
}
