import { sql } from 'drizzle-orm';
import type { DbOrTx } from '@kg/db';
import { nodeParaItems, nodes } from './schema';

/**
 * Candidates of reclassification: the tenant's nodes that have never been given a PARA
 * link (none active, none archived) and are not dismissed. A node a person assigned, even
 * to an item archived since, is never a candidate: the machine never moves it.
 */
const candidate = sql`${nodes.status} <> 'dismissed' and not exists (
  select 1 from ${nodeParaItems} a where a.tenant_id = ${nodes.tenantId} and a.node_id = ${nodes.id})`;

/** Rows of a raw query (node-postgres and PGlite both answer `{rows}`). */
const rowsOf = <T>(result: unknown): T[] => (result as { rows: T[] }).rows;

export interface ScoredNode {
  id: string;
  para_item_id: string | null;
  score: number;
}

/**
 * One page of candidates after `after` (by id), each with its best-scoring item. The
 * keyword score: the item's label and description as an OR of their lexemes, ranked
 * against the node's search vector (title weighs most) by `ts_rank_cd` with
 * normalization 32 (rank / (rank + 1)), so scores lie in [0, 1). 0 when nothing matches.
 */
export async function scoreCandidates(
  db: DbOrTx,
  tenantId: string,
  after: string | null,
  limit: number,
  items: Array<{ id: string; text: string }>,
): Promise<ScoredNode[]> {
  const rows = await db.execute(sql`
    with items as (
      select t.id, replace(plainto_tsquery('english', t.text)::text, '&', '|')::tsquery as q
      from jsonb_to_recordset(${JSON.stringify(items)}::jsonb) as t(id text, text text)
    ), page as (
      select ${nodes.id} as id, ${nodes.search} as search from ${nodes}
      where ${nodes.tenantId} = ${tenantId} and ${candidate} ${after === null ? sql`` : sql`and ${nodes.id} > ${after}`}
      order by ${nodes.id}
      limit ${limit}
    )
    select p.id, b.id as para_item_id, coalesce(b.score, 0)::float8 as score
    from page p
    left join lateral (
      select i.id, ts_rank_cd(p.search, i.q, 32) as score from items i
      where p.search @@ i.q
      order by score desc, i.id
      limit 1
    ) b on true
    order by p.id`);
  return rowsOf<ScoredNode>(rows);
}

export async function countCandidates(db: DbOrTx, tenantId: string): Promise<number> {
  const rows = await db.execute(
    sql`select count(*)::int as n from ${nodes} where ${nodes.tenantId} = ${tenantId} and ${candidate}`,
  );
  return rowsOf<{ n: number }>(rows)[0]?.n ?? 0;
}

/**
 * Inserts automatic assignments for nodes that are still candidates; returns the nodes
 * assigned. A node assigned meanwhile (by a person or another job) is skipped.
 */
export async function insertAutomatic(
  tx: DbOrTx,
  tenantId: string,
  rows: Array<{ node_id: string; para_item_id: string; score: number | null }>,
  by: string,
  now: Date,
): Promise<string[]> {
  if (rows.length === 0) return [];
  const result = await tx.execute(sql`
    insert into ${nodeParaItems} (tenant_id, node_id, para_item_id, position, state, assigned_by, score, assigned_at)
    select ${tenantId}, r.node_id, r.para_item_id, 0, 'active', ${by}, r.score, ${now.toISOString()}::timestamptz
    from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) as r(node_id text, para_item_id text, score float8)
    join ${nodes} on ${nodes.tenantId} = ${tenantId} and ${nodes.id} = r.node_id and ${candidate}
    on conflict do nothing
    returning node_id`);
  return rowsOf<{ node_id: string }>(result).map((r) => r.node_id);
}
