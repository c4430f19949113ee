import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { eq } from 'drizzle-orm';
import { HARNESS_TIMEOUT, freshIdentity, graphHarness, type GraphHarness } from '../testing';
import { links } from '../store/schema';

let h: GraphHarness;
beforeAll(async () => {
  h = await graphHarness();
}, HARNESS_TIMEOUT);
afterAll(() => h.database.close());

type Step =
  | { op: 'replace'; source: number; links: Array<{ target: number; type: string; weight: number }> }
  | { op: 'delete'; node: number };

const N = 5;
const stepArb: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record({
      op: fc.constant('replace' as const),
      source: fc.nat({ max: N - 1 }),
      links: fc.uniqueArray(
        fc.record({
          target: fc.nat({ max: N - 1 }),
          type: fc.constantFrom('related', 'supports', 'part_of'),
          weight: fc.constantFrom(0.25, 0.5, 1),
        }),
        { maxLength: 4, selector: (l) => l.target },
      ),
    }),
  },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('delete' as const), node: fc.nat({ max: N - 1 }) }) },
);

/** The expected graph: undirected edges keyed "a|b" (a < b) with their type and weight. */
function model(steps: Step[]) {
  const edges = new Map<string, { type: string; weight: number }>();
  const alive = new Set(Array.from({ length: N }, (_, i) => i));
  const key = (a: number, b: number) => (a < b ? `${a}|${b}` : `${b}|${a}`);
  const dropAll = (n: number) => {
    for (const k of [...edges.keys()]) if (k.split('|').includes(String(n))) edges.delete(k);
  };
  for (const s of steps) {
    if (s.op === 'delete') {
      if (alive.delete(s.node)) dropAll(s.node);
      continue;
    }
    if (!alive.has(s.source)) continue;
    const targets = s.links.filter((l) => l.target !== s.source && alive.has(l.target));
    dropAll(s.source);
    for (const l of targets) edges.set(key(s.source, l.target), { type: l.type, weight: l.weight });
  }
  return { edges, alive };
}

describe('link symmetry (property)', () => {
  it('after any sequence of replacements and deletions: mirrored rows, exact counts, the expected graph', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(stepArb, { minLength: 1, maxLength: 10 }), async (steps) => {
        const t = freshIdentity();
        const client = h.as(t);
        const ids: string[] = [];
        for (let i = 0; i < N; i++) ids.push((await client.nodes.create({ title: `n${i}` })).id);
        const alive = new Set(ids.keys());
        for (const s of steps) {
          if (s.op === 'delete') {
            if (alive.delete(s.node)) await client.nodes.delete({ id: ids[s.node]! });
          } else if (alive.has(s.source)) {
            const valid = s.links.filter((l) => l.target !== s.source && alive.has(l.target));
            await client.links.replace({
              id: ids[s.source]!,
              links: valid.map((l) => ({ target_id: ids[l.target]!, type: l.type, weight: l.weight })),
            });
          }
        }
        const rows = await h.database.db.select().from(links).where(eq(links.tenantId, t.tenantId));
        const byKey = new Map(rows.map((r) => [`${r.sourceId}>${r.targetId}`, r]));
        for (const r of rows) {
          const mirror = byKey.get(`${r.targetId}>${r.sourceId}`);
          expect(mirror, 'mirror row').toBeDefined();
          expect([mirror!.type, mirror!.weight]).toEqual([r.type, r.weight]);
        }
        const expected = model(steps);
        const index = new Map(ids.map((id, i) => [id, i]));
        const actual = new Map(
          rows
            .filter((r) => r.sourceId < r.targetId)
            .map((r) => {
              const [a, b] = [index.get(r.sourceId)!, index.get(r.targetId)!].sort((x, y) => x - y);
              return [`${a}|${b}`, { type: r.type, weight: r.weight }];
            }),
        );
        expect(actual).toEqual(expected.edges);
        const counts = await h.counts(
          t,
          ids.filter((_, i) => expected.alive.has(i)),
        );
        for (const [id, c] of Object.entries(counts)) {
          const neighbours = new Set(rows.filter((r) => r.sourceId === id).map((r) => r.targetId));
          expect(c).toBe(neighbours.size);
        }
        expect(Object.keys(counts).length).toBe(expected.alive.size);
      }),
      { numRuns: 30 },
    );
  }, 60_000);
});
