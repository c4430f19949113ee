import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
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

/** The rules written the plain way (every candidate of a hop sorted): what boundedBfs must equal. */
async function referenceBfs(seed: string, depth: number, maxNodes: number, load: NeighbourLoader) {
  const depths = new Map<string, number>([[seed, 0]]);
  const cutParents = new Set<string>();
  let frontier = [seed];
  let deepest = 0;
  for (let hop = 1; hop <= depth && frontier.length > 0; hop++) {
    const room = maxNodes - depths.size;
    if (room <= 0) break;
    const adjacency = await load(frontier, room + depths.size);
    const best = new Map<string, { target: string; weight: number; parent: string }>();
    for (const parent of frontier)
      for (const e of adjacency.get(parent) ?? []) {
        if (depths.has(e.target)) continue;
        const seen = best.get(e.target);
        if (!seen || e.weight > seen.weight || (e.weight === seen.weight && parent < seen.parent))
          best.set(e.target, { target: e.target, weight: e.weight, parent });
      }
    const ranked = [...best.values()].sort(
      (a, b) => b.weight - a.weight || (a.target < b.target ? -1 : a.target > b.target ? 1 : 0),
    );
    for (const cut of ranked.slice(room)) cutParents.add(cut.parent);
    for (const c of ranked.slice(0, room)) depths.set(c.target, hop);
    if (Math.min(room, ranked.length) > 0) deepest = hop;
    frontier = ranked.slice(0, room).map((c) => c.target);
    if (ranked.length > room) break;
  }
  return { depths, cutParents, deepest };
}

describe('boundedBfs against the plain rules (property)', () => {
  it('keeps the same nodes, in the same order, with the same cut parents, for any graph and bound', async () => {
    const names = Array.from({ length: 24 }, (_, i) => `n${String(i).padStart(2, '0')}`);
    const link = fc.tuple(fc.nat({ max: 23 }), fc.nat({ max: 23 }), fc.constantFrom(0.2, 0.5, 0.5, 0.8, 1));
    await fc.assert(
      fc.asyncProperty(
        fc.array(link, { maxLength: 80 }),
        fc.nat({ max: 23 }),
        fc.integer({ min: 1, max: 3 }),
        fc.integer({ min: 1, max: 26 }),
        async (links, seed, depth, maxNodes) => {
          const seen = new Set<string>();
          const unique = links.filter(([a, b]) => {
            const key = a < b ? `${a}-${b}` : `${b}-${a}`;
            if (a === b || seen.has(key)) return false;
            seen.add(key);
            return true;
          });
          const g = loaderOf(unique.map(([a, b, w]) => [names[a]!, names[b]!, w]));
          const got = await boundedBfs(names[seed]!, depth, maxNodes, g.load);
          const want = await referenceBfs(names[seed]!, depth, maxNodes, g.load);
          expect([...got.depths]).toEqual([...want.depths]);
          expect([...got.cutParents].sort()).toEqual([...want.cutParents].sort());
          expect(got.deepest).toBe(want.deepest);
        },
      ),
      { numRuns: 300 },
    );
  });
});
