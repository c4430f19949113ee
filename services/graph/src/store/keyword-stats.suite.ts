import { sql } from 'drizzle-orm';
import { expect, it } from 'vitest';
import { newId, type DbOrTx } from '@kg/db';
import { freshIdentity, type GraphHarness } from '../testing';
import { keywordSearch } from './keyword';

/**
 * Keyword statistics (graph.keyword_terms, graph.keyword_corpus: migration 0007) against a
 * recount of the nodes after every kind of write, on PGlite (keyword-stats.test.ts) and on
 * PostgreSQL with concurrent writers (keyword-stats.postgres.test.ts).
 */
type Rows = { rows: Array<Record<string, unknown>> };
const rows = async (db: DbOrTx, q: ReturnType<typeof sql>) => ((await db.execute(q)) as unknown as Rows).rows;

/** The tenant's kept statistics and the same counted from its nodes. */
export async function statsAndRecount(db: DbOrTx, tenantId: string) {
  const kept = await rows(
    db,
    sql`select lexeme, nodes from graph.keyword_terms where tenant_id = ${tenantId} order by lexeme`,
  );
  const counted = await rows(
    db,
    sql`select l.lexeme, count(*)::int as nodes from graph.nodes n
        cross join lateral unnest(tsvector_to_array(n.search)) as l(lexeme)
        where n.tenant_id = ${tenantId} group by 1 order by 1`,
  );
  const corpus = await rows(
    db,
    sql`select nodes, length_sum::int as length_sum from graph.keyword_corpus where tenant_id = ${tenantId}`,
  );
  const corpusCounted = await rows(
    db,
    sql`select count(*)::int as nodes, sum(length(search))::int as length_sum from graph.nodes where tenant_id = ${tenantId} having count(*) > 0`,
  );
  return { kept, counted, corpus, corpusCounted };
}

export async function expectExact(h: GraphHarness, tenantId: string) {
  const s = await statsAndRecount(h.database.db, tenantId);
  expect(s.kept).toEqual(s.counted);
  expect(s.corpus).toEqual(s.corpusCounted);
  return s;
}

const bulkInsert = (tenantId: string, count: number, words: (i: number) => string) => {
  const prefix = newId('node').slice(0, 15);
  return sql`
    insert into graph.nodes (id, tenant_id, title, body_markdown)
    select r.id, ${tenantId}, r.title, r.body
    from jsonb_to_recordset(${JSON.stringify(
      Array.from({ length: count }, (_, i) => ({
        id: prefix + String(i).padStart(11, '0'),
        title: `bulk ${i}`,
        body: words(i),
      })),
    )}::jsonb) as r(id text, title text, body text)`;
};

export function keywordStatsSuite(harness: () => GraphHarness) {
  it('follow every write through the API: create, text change, other changes, delete, per tenant', async () => {
    const h = harness();
    const a = freshIdentity();
    const b = freshIdentity();
    const one = await h.as(a).nodes.create({ title: 'Sourdough starter', content: 'Feed the starter flour daily.' });
    const two = await h.as(a).nodes.create({ title: 'Rye bread', content: 'Rye flour and a sourdough starter.' });
    const theirs = await h.as(b).nodes.create({ title: 'Sourdough', content: 'Another tenant bakes too.' });
    await expectExact(h, a.tenantId);
    await expectExact(h, b.tenantId);

    await h.as(a).nodes.update({ id: one.id, patch: { content: 'Keep the culture warm; zymurgy notes.' } });
    await h.as(a).nodes.update({ id: two.id, patch: { tags: ['baking', 'rye'], summary: 'A dense loaf.' } });
    const after = await expectExact(h, a.tenantId);
    expect(after.kept).toContainEqual({ lexeme: 'zymurgi', nodes: 1 });
    expect(after.kept.find((r) => r.lexeme === 'daili')).toBeUndefined(); // the old word is gone

    // Writes that leave the text alone (status, links' counts) leave the statistics alone.
    await h.as(a).nodes.update({ id: one.id, patch: { status: 'validated' } });
    await h.as(a).links.replace({ id: one.id, links: [{ target_id: two.id, type: 'related' }] });
    expect((await statsAndRecount(h.database.db, a.tenantId)).kept).toEqual(after.kept);

    await h.as(a).nodes.delete({ id: one.id });
    const left = await expectExact(h, a.tenantId);
    expect(left.corpus).toEqual([{ nodes: 1, length_sum: left.corpusCounted[0]!['length_sum'] }]);
    await h.as(a).nodes.delete({ id: two.id });
    expect(await statsAndRecount(h.database.db, a.tenantId)).toEqual({
      kept: [],
      counted: [],
      corpus: [],
      corpusCounted: [],
    });
    // The other tenant's statistics never moved.
    await expectExact(h, b.tenantId);
    expect((await keywordSearch(h.database.db, b.tenantId, 'sourdough', {}, 10, 0)).hits.map((x) => x.id)).toEqual([
      theirs.id,
    ]);
  });

  it('follow bulk statements: thousands of rows inserted, rewritten and deleted at once', async () => {
    const h = harness();
    const t = freshIdentity();
    await h.database.db.execute(bulkInsert(t.tenantId, 2000, (i) => `common word${i % 37} w${i % 401} rare${i}`));
    await expectExact(h, t.tenantId);
    await h.database.db.execute(
      sql`update graph.nodes set body_markdown = body_markdown || ' extra' where tenant_id = ${t.tenantId} and title like 'bulk 1%'`,
    );
    const s = await expectExact(h, t.tenantId);
    expect(s.kept).toContainEqual({ lexeme: 'extra', nodes: 1111 });
    await h.database.db.execute(sql`delete from graph.nodes where tenant_id = ${t.tenantId} and title like 'bulk 2%'`);
    await expectExact(h, t.tenantId);
    await h.database.db.execute(sql`delete from graph.nodes where tenant_id = ${t.tenantId}`);
    expect(await statsAndRecount(h.database.db, t.tenantId)).toEqual({
      kept: [],
      counted: [],
      corpus: [],
      corpusCounted: [],
    });
  });

  it('a write that rolls back leaves them as they were', async () => {
    const h = harness();
    const t = freshIdentity();
    await h.as(t).nodes.create({ title: 'Kept', content: 'stays' });
    const before = await expectExact(h, t.tenantId);
    await expect(
      h.database.db.transaction(async (tx) => {
        await tx.execute(bulkInsert(t.tenantId, 50, (i) => `rolled back ${i}`));
        throw new Error('abort');
      }),
    ).rejects.toThrow('abort');
    expect(await statsAndRecount(h.database.db, t.tenantId)).toEqual(before);
  });

  it('take hostile text: quotes, backslashes, any script, a node of 20,000 distinct words', async () => {
    const h = harness();
    const t = freshIdentity();
    await h.as(t).nodes.create({ title: "O'Reilly \\ café", content: '日本語 ✓ «x» ops@example.com C:\\temp' });
    const huge = Array.from({ length: 20_000 }, (_, i) => `w${i.toString(36)}x`).join(' ');
    const big = await h.as(t).nodes.create({ title: 'Vocabulary', content: huge });
    const s = await expectExact(h, t.tenantId);
    expect(s.kept.length).toBeGreaterThan(20_000);
    await h.as(t).nodes.update({ id: big.id, patch: { content: 'short now' } });
    const shrunk = await expectExact(h, t.tenantId);
    expect(shrunk.kept.length).toBeLessThan(30);
  });
}
