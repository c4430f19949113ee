import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { seedCore, type SeedSource } from './seed-view';
import { boundedBfs } from './bfs';
import { walkSeed } from './seed-walk';
import { TenantGraph } from './tenant-graph';

const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';
/** A valid node id for index i; ids sort in the order of `order` (a permutation), not of i. */
const nodeIdOf = (i: number) => `node_01${ALPHABET[Math.floor(i / 32)]}${ALPHABET[i % 32]}${'0'.repeat(22)}`;

/** The generic walk of the database path, run over the same memory graph by ids (the reference). */
function byIds(graph: TenantGraph): SeedSource {
  return {
    hub: async () => graph.hub(),
    visible: async (id) => graph.visible(id) !== undefined,
    bfs: (seed, depth, maxNodes) => boundedBfs(seed, depth, maxNodes, graph.load),
    details: async (ids) =>
      new Map(
        ids.map((id) => {
          const n = graph.nodes.get(id)!;
          return [id, { title: n.title, paraItemIds: n.para, connectionCount: n.adj.length }];
        }),
      ),
    edgesAmong: async (ids) => {
      const inside = new Set(ids);
      return ids.flatMap((id) =>
        graph.nodes
          .get(id)!
          .adj.filter((e) => inside.has(graph.idAt[e.slot]!))
          .map((e) => ({ source: id, target: graph.idAt[e.slot]!, type: e.type, weight: e.weight })),
      );
    },
  };
}

const graphArb = fc
  .record({
    size: fc.integer({ min: 1, max: 40 }),
    links: fc.array(
      fc.record({
        a: fc.nat(39),
        b: fc.nat(39),
        w: fc.constantFrom(0.5, 0.5, 1),
        type: fc.constantFrom('related', 'supports'),
      }),
      { maxLength: 200 },
    ),
    dismissed: fc.uniqueArray(fc.nat(39), { maxLength: 6 }),
    deleted: fc.uniqueArray(fc.nat(39), { maxLength: 3 }),
    relinked: fc.array(fc.record({ a: fc.nat(39), b: fc.nat(39), w: fc.constantFrom(0.5, 0.9) }), { maxLength: 8 }),
  })
  .map(({ size, links, dismissed, deleted, relinked }) => {
    const ids = Array.from({ length: size }, (_, i) => nodeIdOf(i));
    const pairs = new Map<string, { s: string; t: string; type: string; w: number }>();
    for (const l of links) {
      const [a, b] = [l.a % size, l.b % size];
      if (a !== b) pairs.set([a, b].sort().join('-'), { s: ids[a]!, t: ids[b]!, type: l.type, w: l.w });
    }
    const rows = [...pairs.values()].flatMap((l) => [l, { ...l, s: l.t, t: l.s }]);
    // Nodes in reverse id order: slots are not in id order, as after a tenant's later writes.
    const nodes = [...ids].reverse().map((id, i) => ({
      id,
      title: `n${i}`,
      status: dismissed.includes(size - 1 - i) ? 'dismissed' : 'raw',
      para: [],
    }));
    const graph = TenantGraph.fromSnapshot({ version: 1, nodes, links: rows });
    let version = 1;
    for (const r of relinked) {
      const [a, b] = [r.a % size, r.b % size];
      if (a !== b && graph.nodes.has(ids[a]!) && graph.nodes.has(ids[b]!))
        graph.apply(++version, {
          k: 'links',
          id: ids[a]!,
          set: [{ t: ids[b]!, type: 'related', w: r.w }],
          removed: [],
        });
    }
    for (const d of deleted) if (d < size && size > 1) graph.apply(++version, { k: 'del', id: ids[d]! });
    return graph;
  });

describe('walkSeed (the seed view over slots)', () => {
  it('answers exactly what the generic walk over ids answers (property)', async () => {
    await fc.assert(
      fc.asyncProperty(
        graphArb,
        fc.nat(39),
        fc.integer({ min: 1, max: 3 }),
        fc.oneof(fc.integer({ min: 1, max: 6 }), fc.integer({ min: 1, max: 30 })),
        async (graph, at, depth, maxNodes) => {
          const seeds = [...graph.nodes.keys()].filter((id) => graph.visible(id));
          if (seeds.length === 0) return;
          const seed = seeds[at % seeds.length]!;
          const expected = await seedCore({ seed, depth, max_nodes: maxNodes }, byIds(graph));
          expect(walkSeed(graph, seed, depth, maxNodes)).toEqual(expected);
        },
      ),
      { numRuns: 3000 },
    );
  });

  it('cuts at the bound: the strongest are kept and the cut nodes’ parent joins the frontier', () => {
    const [hub, a, b, c] = [0, 1, 2, 3].map(nodeIdOf) as [string, string, string, string];
    const graph = TenantGraph.fromSnapshot({
      version: 1,
      nodes: [hub, a, b, c].map((id) => ({ id, title: id, status: 'raw', para: [] })),
      links: [
        [a, 0.9],
        [b, 0.3],
        [c, 0.6],
      ].flatMap(([t, w]) => [
        { s: hub, t: t as string, type: 'related', w: w as number },
        { s: t as string, t: hub, type: 'related', w: w as number },
      ]),
    });
    const core = walkSeed(graph, hub, 2, 3);
    expect(core.ids).toEqual([hub, a, c]);
    expect([...core.depths]).toEqual([0, 1, 1]);
    expect(core.frontierIds).toEqual([hub]);
    expect(core.edgeType).toHaveLength(2);
  });
});
