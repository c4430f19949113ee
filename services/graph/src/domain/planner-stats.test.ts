import { sql, type SQLWrapper } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '@kg/logger';
import { graphHarness, HARNESS_TIMEOUT, identity, type GraphHarness } from '../testing';
import { keywordQuery } from '../store/keyword';
import { listQueries } from '../store/nodes';
import { createPlannerStatsJob } from './planner-stats';

/** One large tenant and many small ones. */
const BIG = 'tnt_' + '0'.padStart(26, '0');
const SMALL = 'tnt_' + '7'.padStart(26, '0');
const TENANTS = 80;
const P1 = 'para_01jd8x6q1bf5r3v2m9w7k4t0za';
let h: GraphHarness;

/** Nodes of many tenants, as a real database holds them: each tenant a small share of the rows. */
async function seed(db: GraphHarness['database']['db']) {
  await db.execute(sql`
    insert into graph.nodes (id, tenant_id, title, summary, body_markdown, para_item_ids, status)
    select 'node_' || lpad(g::text, 26, '0'),
      case when g <= 2000 then ${BIG} else 'tnt_' || lpad((1 + g % ${TENANTS})::text, 26, '0') end,
      'note ' || md5(g::text),
      'summary ' || md5((g * 7)::text),
      'body words ' || md5((g * 13)::text) || ' and ' || md5((g * 17)::text) || (case when g % 97 = 0 then ' zymurgy' else '' end),
      case when g % 5 = 0 then array[${P1}]::text[] else '{}'::text[] end,
      case when g % 3 = 0 then 'validated' else 'raw' end
    from generate_series(1, 2000 + ${TENANTS} * 50) g`);
}

async function plan(q: SQLWrapper, analyze = false): Promise<string> {
  const result = await h.database.db.execute(
    analyze ? sql`explain (analyze, costs off, timing off) ${q}` : sql`explain ${q}`,
  );
  return (result as unknown as { rows: Array<Record<string, string>> }).rows.map((r) => Object.values(r)[0]).join('\n');
}
/**
 * A sequential scan of nodes that ran. The keyword statement has one for words most nodes hold
 * (store/keyword.ts, "dense"), behind a gate that is false for the rare words asked here.
 */
const RAN_SEQ_SCAN = /Seq Scan on nodes(?![^\n]*never executed)/;

const statsJob = () =>
  createPlannerStatsJob({
    db: h.database.db,
    kind: h.database.kind,
    logger: createLogger('test', 'silent'),
    intervalMs: 60_000,
  });

beforeAll(async () => {
  h = await graphHarness();
  await seed(h.database.db);
}, HARNESS_TIMEOUT);
afterAll(() => h.database.close());

describe('planner statistics', () => {
  it('analyzes once, then again only after enough writes', async () => {
    const job = statsJob();
    expect(await job.runOnce()).toBe(true);
    expect(await job.runOnce()).toBe(false);
    const api = h.as(identity(3));
    for (let i = 0; i < 10; i++) await api.nodes.create({ title: `Fresh ${i}` });
    expect(await job.runOnce()).toBe(false); // 10 writes < 50 + 10 % of 10 nodes
    for (let i = 10; i < 60; i++) await api.nodes.create({ title: `Fresh ${i}` });
    expect(await job.runOnce()).toBe(true); // 60 ≥ 50 + 10 % of 60
  });

  it('every hot query of the graph tables uses an index once statistics are current', async () => {
    await statsJob().runOnce();
    // The large tenant's search finds its few matches through the full-text index.
    const keyword = await plan(keywordQuery(BIG, 'zymurgy library', {}, 20, 0), true);
    expect(keyword).toContain('nodes_search_idx');
    expect(keyword).not.toMatch(RAN_SEQ_SCAN);
    const filtered = await plan(keywordQuery(BIG, 'zymurgy', { paraItemId: P1, status: 'raw' }, 20, 0), true);
    expect(filtered).toContain('nodes_search_idx');
    expect(filtered).not.toMatch(RAN_SEQ_SCAN);
    expect(await plan(keywordQuery(SMALL, 'zymurgy', {}, 20, 0), true)).not.toMatch(RAN_SEQ_SCAN);
    // The node list: every filter, a page of the large tenant and a page and count of a small one.
    const filters = [{}, { status: 'validated' as const }, { paraItemId: P1 }, { orphan: true }, { orphan: false }];
    for (const f of filters) {
      const big = listQueries(h.database.db, BIG, f, 20, 0);
      const small = listQueries(h.database.db, SMALL, f, 20, 0);
      for (const text of [await plan(big.page), await plan(small.page), await plan(small.total)])
        expect(text, JSON.stringify(f)).not.toMatch(/Seq Scan on nodes/);
    }
  });
});
