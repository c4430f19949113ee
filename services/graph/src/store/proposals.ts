import { and, asc, eq, sql } from 'drizzle-orm';
import type { DbOrTx } from '@kg/db';
import { nodes, proposals } from './schema';

export type ProposalRow = typeof proposals.$inferSelect;
export type NewProposal = Omit<ProposalRow, 'status' | 'createdAt' | 'decidedAt'>;

/** Rows of a raw query (node-postgres and PGlite both answer `{rows}`). */
const rowsOf = <T>(result: unknown): T[] => (result as { rows: T[] }).rows;

/** A node's proposals, optionally of one status, oldest first. */
export function listProposals(
  db: DbOrTx,
  tenantId: string,
  nodeId: string,
  status?: ProposalRow['status'],
): Promise<ProposalRow[]> {
  return db
    .select()
    .from(proposals)
    .where(
      and(
        eq(proposals.tenantId, tenantId),
        eq(proposals.nodeId, nodeId),
        status ? eq(proposals.status, status) : undefined,
      ),
    )
    .orderBy(asc(proposals.createdAt), asc(proposals.id));
}

export async function findProposal(
  db: DbOrTx,
  tenantId: string,
  nodeId: string,
  id: string,
  lock = false,
): Promise<ProposalRow | null> {
  const q = db
    .select()
    .from(proposals)
    .where(and(eq(proposals.tenantId, tenantId), eq(proposals.nodeId, nodeId), eq(proposals.id, id)));
  const [row] = lock ? await q.for('update') : await q;
  return row ?? null;
}

/**
 * Replaces the node's pending proposals by `rows`: pending ones go, and a row whose node,
 * kind and target already hold a decided proposal is not added (a decision is never asked again).
 * Answers the rows added.
 */
export async function replacePending(
  tx: DbOrTx,
  tenantId: string,
  nodeId: string,
  rows: NewProposal[],
): Promise<ProposalRow[]> {
  await tx
    .delete(proposals)
    .where(and(eq(proposals.tenantId, tenantId), eq(proposals.nodeId, nodeId), eq(proposals.status, 'pending')));
  if (rows.length === 0) return [];
  return tx.insert(proposals).values(rows).onConflictDoNothing().returning();
}

/** Decides a pending proposal; null when it was not pending (decided meanwhile). */
export async function decide(
  db: DbOrTx,
  tenantId: string,
  id: string,
  status: 'accepted' | 'dismissed',
  now: Date,
): Promise<ProposalRow | null> {
  const [row] = await db
    .update(proposals)
    .set({ status, decidedAt: now })
    .where(and(eq(proposals.tenantId, tenantId), eq(proposals.id, id), eq(proposals.status, 'pending')))
    .returning();
  return row ?? null;
}

export interface ParaMatch {
  id: string;
  score: number;
  /** Words of the item's label and description that the node holds too (at most 8). */
  words: string[];
}

/**
 * The item that best matches a node by the reclassification's keyword score: the item's
 * label and description as an OR of their lexemes, ranked against the node's search vector
 * by `ts_rank_cd` normalization 32 (in [0, 1)); null when no item shares a word with it.
 */
export async function bestParaMatch(
  db: DbOrTx,
  tenantId: string,
  nodeId: string,
  items: Array<{ id: string; text: string }>,
): Promise<ParaMatch | null> {
  if (items.length === 0) return null;
  const result = await db.execute(sql`
    with items as (
      select t.id, t.text, replace(plainto_tsquery('english', t.text)::text, '&', '|')::tsquery as q
      from jsonb_to_recordset(${JSON.stringify(items)}::jsonb) as t(id text, text text)
    )
    select i.id, ts_rank_cd(n.search, i.q, 32)::float8 as score,
      array(
        select distinct w from regexp_split_to_table(lower(i.text), '[^[:alnum:]]+') as w
        where w <> '' and tsvector_to_array(to_tsvector('english', w)) && tsvector_to_array(n.search)
        limit 8
      ) as words
    from ${nodes} n join items i on n.search @@ i.q
    where n.tenant_id = ${tenantId} and n.id = ${nodeId}
    order by score desc, i.id
    limit 1`);
  const [row] = rowsOf<{ id: string; score: number; words: string[] | string }>(result);
  if (!row) return null;
  // PGlite answers a text[] as an array; node-postgres too (both parse array types).
  const words = Array.isArray(row.words) ? row.words : [];
  return { id: row.id, score: Number(row.score), words: words.sort() };
}
