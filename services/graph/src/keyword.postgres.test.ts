import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '@kg/db';
import { createLogger } from '@kg/logger';
import { HARNESS_TIMEOUT, freshIdentity, graphHarness, type GraphHarness } from './testing';
import { createPlannerStatsJob } from './domain/planner-stats';
import { keywordQuery, keywordSearch } from './store/keyword';

/**
 * Keyword search on real PostgreSQL: the same BM25 statement as on PGlite (domain/keyword.test.ts),
 * and its plan through the full-text index once statistics are current. Opt-in like
 * graph.postgres.test.ts: GRAPH_TEST_PG_URL (npm run test:postgres).
 */
const url = process.env['GRAPH_TEST_PG_URL'];

describe.skipIf(!url && !process.env['CI'])('keyword search on PostgreSQL', () => {
  let h: GraphHarness;
  beforeAll(async () => {
    h = await graphHarness({ url: url! });
  }, HARNESS_TIMEOUT);
  afterAll(() => h?.database.close());

  it('matches any word, ranks the rare word first, treats operators as text, answers stop words with nothing', async () => {
    const t = freshIdentity();
    const api = h.as(t);
    const rare = await api.nodes.create({ title: 'Weekend', content: 'Zymurgy from a library book.' });
    const bullets = await api.nodes.create({ title: 'Packing', content: '- tent\n- stove' });
    for (let i = 0; i < 5; i++) await api.nodes.create({ title: `Library ${i}`, content: 'library cards' });
    const page = await keywordSearch(h.database.db, t.tenantId, 'zymurgy at the library today', {}, 10, 0);
    expect(page.total).toBe(6);
    expect(page.hits[0]!.id).toBe(rare.id);
    for (const q of ['tent -stove', '"tent" or stove', "stove' | !tent:*"])
      expect(
        (await keywordSearch(h.database.db, t.tenantId, q, {}, 10, 0)).hits.map((x) => x.id),
        q,
      ).toEqual([bullets.id]);
    expect(await keywordSearch(h.database.db, t.tenantId, 'the and of ... -', {}, 10, 0)).toEqual({
      hits: [],
      total: 0,
    });
    expect((await keywordSearch(h.database.db, t.tenantId, 'zymurgy', { status: 'validated' }, 10, 0)).total).toBe(0);
  });

  it('searches a large tenant through the full-text index once statistics are current', async () => {
    const tenant = freshIdentity().tenantId;
    const prefix = newId('node').slice(0, 15);
    await h.database.db.execute(sql`
      insert into graph.nodes (id, tenant_id, title, body_markdown)
      select ${prefix} || lpad(g::text, 11, '0'), ${tenant}, 'note ' || md5(g::text),
        'body ' || md5((g * 13)::text) || (case when g % 97 = 0 then ' zymurgy' else '' end)
      from generate_series(1, 3000) g`);
    const job = createPlannerStatsJob({
      db: h.database.db,
      kind: h.database.kind,
      logger: createLogger('test', 'silent'),
      intervalMs: 60_000,
    });
    expect(await job.runOnce()).toBe(true);
    const result = await h.database.db.execute(
      sql`explain (analyze, costs off, timing off) ${keywordQuery(tenant, 'zymurgy', {}, 20, 0)}`,
    );
    const plan = (result as unknown as { rows: Array<Record<string, string>> }).rows
      .map((r) => Object.values(r)[0])
      .join('\n');
    expect(plan).toContain('nodes_search_idx');
    // The statement's scan for words most nodes hold (store/keyword.ts, "dense") stays behind its gate.
    expect(plan).not.toMatch(/Seq Scan on nodes(?![^\n]*never executed)/);
    expect((await keywordSearch(h.database.db, tenant, 'zymurgy', {}, 100, 0)).total).toBe(30);
  });
});
