import { describe, expect, it } from 'vitest';
import { boundedBfs, frontierOf, type NeighbourEdge, type NeighbourLoader } from './bfs';

/** Undirected test graph → loader that honours the ordering and per-node limit. */
function loaderOf(links: Array<[string, string, number]>) {
  const adj = new Map<string, NeighbourEdge[]>();
  const add = (a: string, b: string, w: number) => adj.set(a, [...(adj.get(a) ?? []), { target: b, weight: w }]);
  for (const [a, b, w] of links) {
    add(a, b, w);
    add(b, a, w);
  }
  for (const list of adj.values()) list.sort((x, y) => y.weight - x.weight || x.target.localeCompare(y.target));
  return {
    load: (async (ids, perNode) =>
      new Map(ids.map((id) => [id, (adj.get(id) ?? []).slice(0, perNode)]))) as NeighbourLoader,
    degree: (id: string) => adj.get(id)?.length ?? 0,
    neighbours: (id: string) => (adj.get(id) ?? []).map((e) => e.target),
  } satisfies { load: NeighbourLoader } & Record<string, unknown>;
}

// chain a-b-c-d-e, star centred on c with leaves s1..s3 (weights differ)
const graph = loaderOf([
  ['a', 'b', 1],
  ['b', 'c', 1],
  ['c', 'd', 1],
  ['d', 'e', 1],
  ['c', 's1', 0.9],
  ['c', 's2', 0.5],
  ['c', 's3', 0.7],
]);

describe('boundedBfs', () => {
  it('assigns hop depths along the chain and the star', async () => {
    const r = await boundedBfs('a', 3, 100, graph.load);
    expect(Object.fromEntries(r.depths)).toEqual({ a: 0, b: 1, c: 2, d: 3, s1: 3, s2: 3, s3: 3 });
    expect(r.deepest).toBe(3);
  });

  it('reports deepest-hop nodes with unloaded neighbours as frontier', async () => {
    const r = await boundedBfs('a', 3, 100, graph.load);
    const linksInside = (id: string) => graph.neighbours(id).filter((n) => r.depths.has(n)).length;
    expect(frontierOf(r, graph.degree, linksInside)).toEqual(['d']);
  });

  it('keeps the strongest candidates when the bound bites and reports their parents', async () => {
    const r = await boundedBfs('c', 1, 3, graph.load);
    // c's neighbours by weight: b 1, d 1, s1 .9, s3 .7, s2 .5 → room 2 keeps b, d
    expect([...r.depths.keys()]).toEqual(['c', 'b', 'd']);
    expect([...r.cutParents]).toEqual(['c']);
  });

  it('never exceeds the bound, whatever the depth', async () => {
    for (const max of [1, 2, 4, 6]) {
      const r = await boundedBfs('a', 3, max, graph.load);
      expect(r.depths.size).toBeLessThanOrEqual(max);
    }
  });
});
