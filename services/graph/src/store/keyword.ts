import { sql, type SQL } from 'drizzle-orm';
import type { DbOrTx } from '@kg/db';
import type { NodeRow } from './nodes';

/**
 * Keyword search: BM25 over the nodes' search vectors (docs/API.md "Keyword search").
 *
 * A query is plain words: its lexemes are those `to_tsvector('english', query)` finds (stop
 * words and punctuation drop out), each quoted into its own tsquery, so no operator in the
 * text (`-`, quotes, `or`, `<->`) changes matching. A node matches when it holds any lexeme.
 *
 * Score: sum over matched lexemes of idf · tf·(k1+1) / (tf + k1·(1 − b + b·len/avglen)),
 * idf = ln(1 + (N − df + 0.5)/(df + 0.5)), tf the lexeme's occurrences in the vector, each
 * weighted by its field (title 2, tags and summary 1.2, body 1: a BM25F-style tf), len the
 * vector's length (distinct lexemes, the `search_length` column), N and avglen over the
 * tenant's nodes, df the tenant's nodes holding the lexeme (counted through the GIN index at
 * query time up to KEYWORD_LIMITS.dfCount, estimated beyond). Then ×1.25 when the node holds every lexeme, ×1.5
 * when it holds the query as a phrase (`phraseto_tsquery`).
 */
export const BM25 = {
  k1: 1.2,
  b: 0.75,
  allWordsBoost: 1.25,
  phraseBoost: 1.5,
  /** Weight of one occurrence by field (the vector's weight labels); the body counts 1. */
  field: { title: 2, tagsAndSummary: 1.2 },
} as const;

/**
 * The candidate set's bounds: the rarest lexemes kept, and candidates taken per lexeme. A
 * lexeme's df is counted up to `dfCount`; beyond, it is estimated from the planner's
 * statistics of the search vectors (the lexeme's share of all nodes, times the tenant's N,
 * never below the count): counting a word most of 100k nodes hold costs tens of ms.
 */
export const KEYWORD_LIMITS = { maxTerms: 32, perTermCandidates: 1000, dfCount: 5000 } as const;

export interface KeywordFilter {
  status?: NodeRow['status'];
  paraItemId?: string;
  orphan?: boolean;
  sourceCaptureId?: string;
}

export interface KeywordPage {
  hits: Array<{ id: string; score: number }>;
  /** Matching candidates scored (at most maxTerms × perTermCandidates). */
  total: number;
}

/** The filters as a condition on alias `n` of graph.nodes. */
function filterSql(tenantId: string, f: KeywordFilter): SQL {
  const parts: SQL[] = [sql`n.tenant_id = ${tenantId}`];
  if (f.status) parts.push(sql`n.status = ${f.status}`);
  if (f.paraItemId !== undefined) parts.push(sql`n.para_item_ids @> array[${f.paraItemId}]::text[]`);
  if (f.orphan === true) parts.push(sql`cardinality(n.para_item_ids) = 0`);
  if (f.orphan === false) parts.push(sql`cardinality(n.para_item_ids) > 0`);
  if (f.sourceCaptureId !== undefined) parts.push(sql`n.source_capture_id = ${f.sourceCaptureId}`);
  return sql.join(parts, sql` and `);
}

/** N and the average document length of a tenant's nodes (BM25's corpus statistics). */
export interface CorpusStats {
  nodes: number;
  avgLength: number;
  /** The most common lexemes of all nodes, with the share of nodes holding each (see commonLexemes). */
  common: CommonLexemes;
}

export interface CommonLexemes {
  lexemes: string[];
  freqs: number[];
}

/**
 * The planner's statistics of the search vectors (after ANALYZE): the most common lexemes over
 * all tenants' nodes and the share of nodes holding each. Empty before the first ANALYZE.
 */
export async function commonLexemes(db: DbOrTx): Promise<CommonLexemes> {
  const result = await db.execute(sql`
    select coalesce(array_agg(e.lex), '{}') as lexemes, coalesce(array_agg(e.freq), '{}') as freqs
    from pg_stats p
    cross join lateral unnest(p.most_common_elems::text::text[], p.most_common_elem_freqs) as e(lex, freq)
    where p.schemaname = 'graph' and p.tablename = 'nodes' and p.attname = 'search' and e.lex is not null`);
  const [row] = rowsOf<{ lexemes: string[]; freqs: number[] }>(result);
  return { lexemes: row?.lexemes ?? [], freqs: (row?.freqs ?? []).map(Number) };
}

/** The tenant's corpus statistics: an index-only scan of (tenant_id, search_length). */
export async function corpusStats(db: DbOrTx, tenantId: string, common?: CommonLexemes): Promise<CorpusStats> {
  const result = await db.execute(
    sql`select count(*)::float8 as nodes, coalesce(avg(search_length), 1)::float8 as avg_length from graph.nodes where tenant_id = ${tenantId}`,
  );
  const [row] = rowsOf<{ nodes: number; avg_length: number }>(result);
  return {
    nodes: Number(row?.nodes ?? 0),
    avgLength: Number(row?.avg_length ?? 1),
    common: common ?? (await commonLexemes(db)),
  };
}

const commonJson = (c: CommonLexemes) => JSON.stringify(Object.fromEntries(c.lexemes.map((l, i) => [l, c.freqs[i]])));

/** Rows of a raw query (node-postgres and PGlite both answer `{rows}`). */
const rowsOf = <T>(result: unknown): T[] => (result as { rows: T[] }).rows;

/** The keyword query (for EXPLAIN too): one row, the candidates' count and the page's hits as JSON. */
export function keywordQuery(
  tenantId: string,
  query: string,
  corpus: CorpusStats,
  filter: KeywordFilter,
  limit: number,
  offset: number,
) {
  const { k1, b, allWordsBoost, phraseBoost, field } = BM25;
  return sql`
    with terms as (
      select lexeme as lex,
        (chr(39) || replace(replace(lexeme, chr(92), chr(92) || chr(92)), chr(39), chr(39) || chr(39)) || chr(39))::tsquery as q
      from unnest(to_tsvector('english', ${query}))
    ), stats as (
      select ${corpus.nodes}::float8 as n, greatest(${corpus.avgLength}::float8, 1) as avglen
    ), capped as materialized (
      select t.lex, t.q, (select count(*) from (
          select 1 from graph.nodes n where n.tenant_id = ${tenantId} and n.search @@ t.q limit ${KEYWORD_LIMITS.dfCount}
        ) m)::float8 as df
      from terms t
    ), common as (
      select e.key as lex, e.value::float8 as freq from jsonb_each_text(${commonJson(corpus.common)}::jsonb) e
    ), counted as (
      select c.lex, c.q, case when c.df < ${KEYWORD_LIMITS.dfCount} then c.df
        else greatest(c.df, (select max(s.n * m.freq) from stats s, common m where m.lex = c.lex)) end as df
      from capped c
    ), kept as (
      select c.lex, c.q, ln(1 + (greatest(s.n, c.df) - c.df + 0.5) / (c.df + 0.5)) as idf
      from counted c cross join stats s
      where c.df > 0
      order by c.df, c.lex
      limit ${KEYWORD_LIMITS.maxTerms}
    ), candidates as (
      select distinct m.id from kept k cross join lateral (
        select n.id from graph.nodes n where ${filterSql(tenantId, filter)} and n.search @@ k.q
        limit ${KEYWORD_LIMITS.perTermCandidates}
      ) m
    ), scored as (
      select n.id,
        sum(k.idf * f.tf * (${k1}::float8 + 1) / (f.tf + ${k1}::float8 * (1 - ${b}::float8 + ${b}::float8 * greatest(n.search_length, 1) / s.avglen))) as bm25,
        count(*) as matched,
        (count(*) > 1 and n.search @@ phraseto_tsquery('english', ${query})) as phrase
      from candidates c
      join graph.nodes n on n.tenant_id = ${tenantId} and n.id = c.id
      cross join stats s
      cross join lateral unnest(n.search) u
      join kept k on k.lex = u.lexeme
      cross join lateral (
        select coalesce(sum(case w when 'A' then ${field.title}::float8 when 'B' then ${field.tagsAndSummary}::float8 else 1 end), 1) as tf
        from unnest(u.weights) w
      ) f
      group by n.id, s.avglen
    ), ranked as (
      select s.id, (s.bm25 * case
          when s.phrase then ${phraseBoost}::float8
          when s.matched = (select count(*) from terms) and s.matched > 1 then ${allWordsBoost}::float8
          else 1 end)::float8 as score
      from scored s
    )
    select (select count(*)::int from ranked) as total,
      coalesce((select json_agg(json_build_object('id', p.id, 'score', p.score) order by p.score desc, p.id)
        from (select id, score from ranked order by score desc, id limit ${limit} offset ${offset}) p), '[]'::json) as hits`;
}

/** One page of the tenant's nodes ranked by BM25 for `query`, best first (ties by id). */
export async function keywordSearch(
  db: DbOrTx,
  tenantId: string,
  query: string,
  filter: KeywordFilter,
  limit: number,
  offset: number,
  corpus?: CorpusStats,
): Promise<KeywordPage> {
  const stats = corpus ?? (await corpusStats(db, tenantId));
  const result = await db.execute(keywordQuery(tenantId, query, stats, filter, limit, offset));
  const [row] = rowsOf<{ total: number; hits: Array<{ id: string; score: number }> | string }>(result);
  if (!row) return { hits: [], total: 0 };
  const hits = typeof row.hits === 'string' ? (JSON.parse(row.hits) as KeywordPage['hits']) : row.hits;
  return { hits, total: row.total };
}
