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
 * vector's length (distinct lexemes, the `search_length` column). N, avglen and every df are
 * the tenant's, read from graph.keyword_corpus and graph.keyword_terms, which triggers on
 * graph.nodes keep in each write's transaction (migration 0007): nothing is counted per query.
 * Then ×1.25 when the node holds every lexeme, ×1.5 when it holds the query as a phrase
 * (`phraseto_tsquery`).
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
 * The candidate set's bounds. The `maxTerms` rarest lexemes are kept. Candidates come from
 * them rarest first, each lexeme taking all its nodes while the total stays within
 * `candidates`, the first that does not fit taking what is left, and the commoner ones none
 * (their idf is the smallest, so nodes holding only them rank last): a node holding any rarer
 * lexeme is always scored, with every kept lexeme it holds. Reading a common lexeme's nodes is
 * what made a query slow (each is a heap row and a vector to score).
 */
export interface KeywordLimits {
  maxTerms: number;
  candidates: number;
}
export const KEYWORD_LIMITS: Readonly<KeywordLimits> = { maxTerms: 32, candidates: 1000 };

/**
 * A lexeme is read by scanning the tenant's rows instead of the full-text index when
 * df² > DENSE_FACTOR × take × N: the index's bitmap costs about df entries, the scan about
 * take × N / df rows, a row costing a few entries' worth (measured: 99k-entry bitmap 12.6 ms).
 */
const DENSE_FACTOR = 4;

export interface KeywordFilter {
  status?: NodeRow['status'];
  paraItemId?: string;
  orphan?: boolean;
  sourceCaptureId?: string;
}

export interface KeywordPage {
  hits: Array<{ id: string; score: number }>;
  /** Matching candidates scored (at most KEYWORD_LIMITS.candidates). */
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

/** Rows of a raw query (node-postgres and PGlite both answer `{rows}`). */
const rowsOf = <T>(result: unknown): T[] => (result as { rows: T[] }).rows;

/** The keyword query (for EXPLAIN too): one row, the candidates' count and the page's hits as JSON. */
export function keywordQuery(
  tenantId: string,
  query: string,
  filter: KeywordFilter,
  limit: number,
  offset: number,
  limits: KeywordLimits = KEYWORD_LIMITS,
) {
  const { k1, b, allWordsBoost, phraseBoost, field } = BM25;
  return sql`
    with stats as (
      select coalesce(max(c.nodes), 0)::float8 as n,
        greatest(coalesce(max(c.length_sum)::float8 / nullif(max(c.nodes), 0), 1), 1) as avglen
      from graph.keyword_corpus c where c.tenant_id = ${tenantId}
    ), terms as (
      select lexeme as lex,
        (chr(39) || replace(replace(lexeme, chr(92), chr(92) || chr(92)), chr(39), chr(39) || chr(39)) || chr(39))::tsquery as q
      from unnest(to_tsvector('english', ${query}))
    ), kept as materialized (
      select t.lex, t.q, ln(1 + (greatest(s.n, k.nodes) - k.nodes + 0.5) / (k.nodes + 0.5)) as idf,
        least(k.nodes, greatest(${limits.candidates} - coalesce(sum(k.nodes) over (
          order by k.nodes, t.lex rows between unbounded preceding and 1 preceding), 0), 0))::int as take,
        k.nodes::float8 as df
      from terms t
      -- One primary-key lookup per query word, whatever the planner knows of the table.
      cross join lateral (
        select kt.nodes from graph.keyword_terms kt where kt.tenant_id = ${tenantId} and kt.lexeme = t.lex
      ) k
      cross join stats s
      where k.nodes > 0
      order by k.nodes, t.lex
      limit ${limits.maxTerms}
    ), candidates as (
      -- Each candidate's vector and length come with it (no second visit of its row). A word
      -- most nodes hold is "dense": the full-text index would list all its nodes to give a few
      -- (a bitmap of every holder), where reading the tenant's rows until enough hold it costs
      -- about take × N / df rows; the cheaper of the two runs (the other branch's gate is false).
      select distinct on (m.id) m.id, m.search, m.len from kept k cross join stats s cross join lateral (
        (select n.id, n.search, n.search_length as len from graph.nodes n
          where ${filterSql(tenantId, filter)} and n.search @@ k.q and k.df * k.df <= ${DENSE_FACTOR}::float8 * k.take * s.n
          limit k.take)
        union all
        (select d.id, d.search, d.len from (
            select n.id, n.search, n.search_length as len from graph.nodes n
            where ${filterSql(tenantId, filter)} and k.df * k.df > ${DENSE_FACTOR}::float8 * k.take * s.n
            offset 0
          ) d
          where d.search @@ k.q
          limit k.take)
      ) m
      where k.take > 0
      order by m.id
    ), kept_lexemes as (
      select array_agg(lex) as lexemes from kept
    ), scored as (
      -- Per candidate: its vector cut down to the kept lexemes it holds (the vector minus what
      -- is not kept, in C), so only those become rows; tf weighs each occurrence by its field.
      select c.id, x.bm25, x.matched,
        (x.matched > 1 and c.search @@ phraseto_tsquery('english', ${query})) as phrase
      from candidates c
      cross join stats s
      cross join kept_lexemes kl
      cross join lateral (
        select sum(k.idf * f.tf * (${k1}::float8 + 1) / (f.tf + ${k1}::float8 * (1 - ${b}::float8 + ${b}::float8 * greatest(c.len, 1) / s.avglen))) as bm25,
          count(*) as matched
        from unnest(ts_delete(c.search, tsvector_to_array(ts_delete(c.search, kl.lexemes)))) u
        join kept k on k.lex = u.lexeme
        cross join lateral (
          select case when cardinality(u.weights) = 0 then 1 else cardinality(u.weights)
            + ${field.title - 1}::float8 * cardinality(array_positions(u.weights, 'A'))
            + ${field.tagsAndSummary - 1}::float8 * cardinality(array_positions(u.weights, 'B')) end as tf
        ) f
      ) x
      where x.matched > 0
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
  limits?: KeywordLimits,
): Promise<KeywordPage> {
  const result = await db.execute(keywordQuery(tenantId, query, filter, limit, offset, limits));
  const [row] = rowsOf<{ total: number; hits: Array<{ id: string; score: number }> | string }>(result);
  if (!row) return { hits: [], total: 0 };
  const hits = typeof row.hits === 'string' ? (JSON.parse(row.hits) as KeywordPage['hits']) : row.hits;
  return { hits, total: row.total };
}
