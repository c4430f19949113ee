import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshIdentity, graphHarness, HARNESS_TIMEOUT, type GraphHarness } from '../testing';
import { expectExact, keywordStatsSuite } from './keyword-stats.suite';

/**
 * Keyword statistics on real PostgreSQL, where writers run concurrently: the same suite as on
 * PGlite, and parallel writes of two tenants. Opt-in like graph.postgres.test.ts:
 * GRAPH_TEST_PG_URL (npm run test:postgres).
 */
const url = process.env['GRAPH_TEST_PG_URL'];

describe.skipIf(!url && !process.env['CI'])('keyword statistics on PostgreSQL', () => {
  let h: GraphHarness;
  beforeAll(async () => {
    h = await graphHarness({ url: url! });
  }, HARNESS_TIMEOUT);
  afterAll(() => h?.database.close());

  keywordStatsSuite(() => h);

  it('stay exact under concurrent writers of two tenants sharing every word (no deadlock, nothing lost)', async () => {
    const tenants = [freshIdentity(), freshIdentity()];
    const words = (i: number) => `shared common words every writer uses, and word${i % 7} of ${i}`;
    const created = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        h.as(tenants[i % 2]!).nodes.create({ title: `Note ${i}`, content: words(i) }),
      ),
    );
    await Promise.all(
      created.map((n, i) =>
        i % 3 === 0
          ? h.as(tenants[i % 2]!).nodes.delete({ id: n.id })
          : h.as(tenants[i % 2]!).nodes.update({ id: n.id, patch: { content: `${words(i + 1)} rewritten` } }),
      ),
    );
    for (const t of tenants) {
      const s = await expectExact(h, t.tenantId);
      expect(s.corpus).toEqual([{ nodes: 13, length_sum: s.corpusCounted[0]!['length_sum'] }]);
    }
  });
});
