import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { and, eq } from 'drizzle-orm';
import { graphHarness, identity } from '../testing';
import { links, nodes } from '../store/schema';

let h: Awaited<ReturnType<typeof graphHarness>>;
beforeAll(async () => {
  h = await graphHarness();
});
afterAll(() => h.database.close());

describe('link symmetry (property)', () => {
  it('holds after any sequence of full replacements, with exact connection counts', async () => {
    let tenant = 10;
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.record({
            source: fc.nat({ max: 4 }),
            targets: fc.uniqueArray(fc.nat({ max: 4 }), { maxLength: 4 }),
            type: fc.constantFrom('related', 'supports', 'part_of'),
            weight: fc.constantFrom(0.25, 0.5, 1),
          }),
          { minLength: 1, maxLength: 8 },
        ),
        async (steps) => {
          const t = tenant++;
          const client = h.as(t);
          const ids: string[] = [];
          for (let i = 0; i < 5; i++) ids.push((await client.nodes.create({ title: `n${i}` })).id);
          for (const step of steps) {
            const targets = step.targets.filter((x) => x !== step.source);
            await client.links.replace({
              id: ids[step.source]!,
              links: targets.map((x) => ({ target_id: ids[x]!, type: step.type, weight: step.weight })),
            });
          }
          const tenantId = identity(t).tenantId;
          const rows = await h.database.db.select().from(links).where(eq(links.tenantId, tenantId));
          const key = (a: string, b: string) => `${a}>${b}`;
          const byKey = new Map(rows.map((r) => [key(r.sourceId, r.targetId), r]));
          for (const r of rows) {
            const mirror = byKey.get(key(r.targetId, r.sourceId));
            expect(mirror, 'mirror row').toBeDefined();
            expect([mirror!.type, mirror!.weight]).toEqual([r.type, r.weight]);
          }
          for (const id of ids) {
            const [row] = await h.database.db
              .select({ c: nodes.connectionCount })
              .from(nodes)
              .where(and(eq(nodes.tenantId, tenantId), eq(nodes.id, id)));
            expect(row!.c).toBe(rows.filter((r) => r.sourceId === id).length);
          }
        },
      ),
      { numRuns: 25 },
    );
  }, 60_000);
});
