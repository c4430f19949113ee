import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { graphHarness, HARNESS_TIMEOUT, identity, type GraphHarness } from '../testing';
import { sql } from 'drizzle-orm';
import { KEYWORD_LIMITS, keywordQuery, keywordSearch } from '../store/keyword';

let h: GraphHarness;
beforeAll(async () => {
  h = await graphHarness();
}, HARNESS_TIMEOUT);
afterAll(() => h.database.close());

describe('keyword search (BM25)', () => {
  it('matches any word and ranks rare words above common ones', async () => {
    const t = identity(51);
    const api = h.as(t);
    const rare = await api.nodes.create({ title: 'Notes', content: 'The zymurgy of a library.' });
    const common = [];
    for (let i = 0; i < 5; i++) common.push(await api.nodes.create({ title: `Library ${i}`, content: 'A library.' }));
    const page = await keywordSearch(h.database.db, t.tenantId, 'library zymurgy', {}, 10, 0);
    expect(page.total).toBe(6);
    expect(page.hits[0]!.id).toBe(rare.id);
  });

  it('reads every query as words: URLs, e-mail, quotes, backslashes and any script never fail', async () => {
    const t = identity(52);
    const api = h.as(t);
    const node = await api.nodes.create({
      title: "O'Reilly café notes",
      content: 'Mail ops@example.com, see https://example.com/a?b=c and C:\\temp\\x. 日本語 ✓',
    });
    const queries = [
      "o'reilly",
      'ops@example.com',
      'https://example.com/a?b=c',
      'C:\\temp\\x',
      '\\',
      "'''",
      'café 日本語 ✓',
      'e-mail — “smart quotes” «guillemets»',
    ];
    for (const q of queries) {
      const page = await keywordSearch(h.database.db, t.tenantId, q, {}, 10, 0);
      if (q.replace(/[^a-z0-9]/gi, '').length > 2)
        expect(
          page.hits.map((x) => x.id),
          q,
        ).toContain(node.id);
    }
  });

  it('reads a word most nodes hold by scanning the tenant, not by listing the index, within the bound', async () => {
    const t = identity(53);
    await h.database.db.execute(sql`
      insert into graph.nodes (id, tenant_id, title, body_markdown)
      select 'node_' || lpad(g::text, 26, '0') || 'd', ${t.tenantId}, 'everywhere ' || g, case when g % 10 = 0 then 'zymurgy' else '' end
      from generate_series(1, 300) g`);
    const ran = async (candidates: number) => {
      const result = await h.database.db.execute(
        sql`explain (analyze, costs off, timing off) ${keywordQuery(t.tenantId, 'everywhere', {}, 20, 0, { ...KEYWORD_LIMITS, candidates })}`,
      );
      return (result as unknown as { rows: Array<Record<string, string>> }).rows
        .map((r) => Object.values(r)[0])
        .join('\n');
    };
    // 300 holders of 300 nodes, 50 wanted: 300² > 4 × 50 × 300, the scan runs and stops at 50.
    const scanned = await ran(50);
    // (the branch reading the index: `on nodes n`; the one scanning the tenant: `on nodes n_1`)
    expect(scanned).toMatch(/on nodes n [^\n]*never executed/);
    expect(scanned).toMatch(/on nodes n_1 (?![^\n]*never executed)/);
    const dense = await keywordSearch(h.database.db, t.tenantId, 'everywhere', {}, 100, 0, {
      ...KEYWORD_LIMITS,
      candidates: 50,
    });
    expect(dense.total).toBe(50);
    // The index when all its holders fit: every node scored.
    const listed = await ran(1000);
    expect(listed).toMatch(/on nodes n (?![^\n]*never executed)/);
    expect(listed).toMatch(/on nodes n_1 [^\n]*never executed/);
    expect((await keywordSearch(h.database.db, t.tenantId, 'everywhere', {}, 100, 0)).total).toBe(300);
    // A rarer word goes first: its 30 holders are always among the candidates, ranked first.
    const both = await keywordSearch(h.database.db, t.tenantId, 'everywhere zymurgy', {}, 30, 0, {
      ...KEYWORD_LIMITS,
      candidates: 50,
    });
    expect(both.total).toBeGreaterThanOrEqual(30); // 30 + 20, less those of the 20 among the 30
    expect(both.total).toBeLessThanOrEqual(50);
    expect(both.hits.map((x) => x.id).every((id) => Number(id.slice(5, 31)) % 10 === 0)).toBe(true);
  });
});
