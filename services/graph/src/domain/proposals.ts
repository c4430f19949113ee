/**
 * Proposals: links and a PARA item the ingest worker proposes for the node a capture made,
 * machine-made until a person accepts or dismisses them. The graph service owns links and
 * PARA assignments, so it owns their proposals too: it filters the worker's candidates,
 * scores the PARA match, records them, and applies an accepted one as any other write.
 */
import {
  AppError,
  conflict,
  isId,
  notFound,
  type Identity,
  type Proposal,
  type ProposalDecision,
  type ProposalStatus,
} from '@kg/contracts';
import { iso, isoOrNull, newId, type Tx } from '@kg/db';
import { assignmentsOf, replaceAssignments, syncActiveIds } from '../store/assignments';
import { linksOf } from '../store/links';
import { findNode, findNodes } from '../store/nodes';
import {
  bestParaMatch,
  decide,
  findProposal,
  listProposals,
  replacePending,
  type NewProposal,
  type ProposalRow,
} from '../store/proposals';
import { recordWrite } from '../store/stats';
import { checkAssignable } from './assignments';
import { captureNodeId } from './capture-nodes';
import type { GraphContext } from './context';
import { nodeUpdated, proposalCreated } from './events';
import { applyLinks, toLink } from './links';
import { nodeChange } from './change';
import { autoAssign, IMPORT } from './reclassify';
import { tenantWrite } from './write';

/** A link is proposed from this cosine similarity up: stricter than search's 0.25 floor (a related note, not just a topic). */
export const LINK_PROPOSAL_MIN_SCORE = 0.45;
/** Link proposals per capture at most (the most similar). */
export const MAX_LINK_PROPOSALS = 5;
/** A PARA item is proposed from this keyword score up: the reclassification's threshold. */
export const PARA_PROPOSAL_MIN_SCORE = 0.3;
export const PARA_MATCH_MODEL = 'keyword (Postgres ts_rank_cd, normalization 32)';
/** What an accepted link proposal creates: type `related`, weight the proposal's score (2 decimals). */
export const ACCEPTED_LINK_TYPE = 'related';

const SINGULAR = { projects: 'project', areas: 'area', resources: 'resource' } as const;

export const toProposal = (p: ProposalRow): Proposal => ({
  id: p.id,
  node_id: p.nodeId,
  capture_id: p.captureId,
  kind: p.kind,
  target_id: p.targetId,
  target_title: p.targetTitle,
  score: p.score,
  model: p.model,
  reason: p.reason,
  status: p.status,
  created_at: iso(p.createdAt),
  decided_at: isoOrNull(p.decidedAt),
});

export const acceptedWeight = (score: number) => Math.min(1, Math.max(0.01, Math.round(score * 100) / 100));

/**
 * Records the proposals for a capture's node: the worker's similar nodes (those still
 * present, not the node itself, not already linked, at or above LINK_PROPOSAL_MIN_SCORE, the
 * best MAX_LINK_PROPOSALS) and, for a node without any PARA association, the best-matching
 * active PARA item at or above PARA_PROPOSAL_MIN_SCORE. The node's pending proposals are
 * replaced (a reingest never duplicates them); decided ones stay and are not proposed again.
 * A node deleted meanwhile gets none. Each proposal added is announced by a proposal.created
 * written in the same transaction (the outbox relay is woken once it commits).
 */
export async function recordProposals(
  ctx: GraphContext,
  identity: Identity,
  input: {
    capture_id: string;
    links: Array<{ id: string; score: number }>;
    link_model: string;
    para_item?: RequestedItem | null | undefined;
  },
): Promise<{ proposals: Proposal[]; para_item?: AssignedItem | null }> {
  const tenantId = identity.tenantId;
  const nodeId = captureNodeId(input.capture_id);
  const node = await findNode(ctx.db, tenantId, nodeId);
  if (!node) return { proposals: [] };
  // The node's PARA item: the one the capture asks for (assigned), else the best match (proposed).
  const requested = input.para_item ? await assignRequested(ctx, identity, nodeId, input.para_item) : null;
  const linked = new Set((await linksOf(ctx.db, tenantId, nodeId)).map((l) => l.targetId));
  const wanted = input.links
    .filter((h) => h.id !== nodeId && !linked.has(h.id) && h.score >= LINK_PROPOSAL_MIN_SCORE)
    .sort((a, b) => b.score - a.score || a.id.localeCompare(b.id));
  const titles = new Map(
    (
      await findNodes(
        ctx.db,
        tenantId,
        wanted.map((h) => h.id),
      )
    ).map((n) => [n.id, n.title]),
  );
  const base = { tenantId, nodeId, captureId: input.capture_id };
  const rows: NewProposal[] = wanted
    .filter((h) => titles.has(h.id))
    .slice(0, MAX_LINK_PROPOSALS)
    .map((h) => ({
      ...base,
      id: newId('proposal'),
      kind: 'link',
      targetId: h.id,
      targetTitle: titles.get(h.id)!,
      score: h.score,
      model: input.link_model,
      reason: `Similar in meaning to “${titles.get(h.id)}”: cosine similarity ${h.score.toFixed(2)} (proposed from ${LINK_PROPOSAL_MIN_SCORE})`,
    }));
  const para = requested ? null : await paraProposal(ctx, identity, nodeId, node.status);
  if (para) rows.push({ ...base, id: newId('proposal'), ...para });
  const created = await ctx.db.transaction(async (tx) => {
    const added = await replacePending(tx, tenantId, nodeId, rows);
    for (const row of added) await proposalCreated(tx, tenantId, toProposal(row), ctx.now());
    return added.length;
  });
  if (created > 0) ctx.afterCommit();
  const proposals = (await listProposals(ctx.db, tenantId, nodeId, 'pending')).map(toProposal);
  return requested ? { proposals, para_item: requested } : { proposals };
}

type RequestedItem = { category: 'projects' | 'areas' | 'resources'; label: string };
type AssignedItem = { id: string; label: string; created: boolean; assigned: boolean };

/**
 * A bookmark import's folder as the node's PARA item: the PARA service finds the tenant's
 * active item of that label or makes it (once, whatever the concurrency), and the node is
 * assigned to it as reclassification assigns (`system:import`, no score): only a node that
 * has never been placed and is not dismissed, so a re-run adds nothing and a person's
 * placement is never moved.
 */
async function assignRequested(
  ctx: GraphContext,
  identity: Identity,
  nodeId: string,
  request: RequestedItem,
): Promise<AssignedItem> {
  const { item, created } = await ctx.para.as(identity).items.ensure(request);
  const assigned = await autoAssign(
    ctx,
    identity.tenantId,
    [{ node_id: nodeId, para_item_id: item.id, score: null }],
    IMPORT,
  );
  return { id: item.id, label: item.label, created, assigned: assigned > 0 };
}

/** The PARA item proposal of a node that has never been given one (as reclassification's candidates). */
async function paraProposal(ctx: GraphContext, identity: Identity, nodeId: string, status: string) {
  if (status === 'dismissed') return null;
  if (((await assignmentsOf(ctx.db, identity.tenantId, [nodeId])).get(nodeId) ?? []).length > 0) return null;
  const { data: items } = await ctx.para.as(identity).items.list({ status: 'active' });
  const match = await bestParaMatch(
    ctx.db,
    identity.tenantId,
    nodeId,
    items.map((i) => ({ id: i.id, text: `${i.label} ${i.description}` })),
  );
  if (!match || match.score < PARA_PROPOSAL_MIN_SCORE) return null;
  const item = items.find((i) => i.id === match.id)!;
  const shares = match.words.length ? `shares the words ${match.words.join(', ')} with` : 'matches';
  return {
    kind: 'para_item' as const,
    targetId: item.id,
    targetTitle: item.label,
    score: match.score,
    model: PARA_MATCH_MODEL,
    reason: `The node ${shares} the ${SINGULAR[item.category]} “${item.label}”: keyword score ${match.score.toFixed(2)} (proposed from ${PARA_PROPOSAL_MIN_SCORE})`,
  };
}

async function pendingProposal(ctx: GraphContext, tenantId: string, nodeId: string, id: string) {
  const row =
    isId('node', nodeId) && isId('proposal', id) && (await findNode(ctx.db, tenantId, nodeId))
      ? await findProposal(ctx.db, tenantId, nodeId, id)
      : null;
  if (!row) throw notFound('Proposal');
  if (row.status !== 'pending') throw conflict(`The proposal was already ${row.status}`);
  return row;
}

export async function nodeProposals(ctx: GraphContext, tenantId: string, nodeId: string, status?: ProposalStatus) {
  if (!isId('node', nodeId) || !(await findNode(ctx.db, tenantId, nodeId))) throw notFound('Node');
  return { data: (await listProposals(ctx.db, tenantId, nodeId, status)).map(toProposal) };
}

/** Locks the proposal inside the write and marks it accepted; 409 when another request decided it first. */
async function acceptLocked(ctx: GraphContext, tx: Tx, tenantId: string, row: ProposalRow) {
  const locked = await findProposal(tx, tenantId, row.nodeId, row.id, true);
  if (!locked || locked.status !== 'pending') throw conflict(`The proposal was already ${locked?.status ?? 'removed'}`);
  return (await decide(tx, tenantId, row.id, 'accepted', ctx.now()))!;
}

/**
 * Accepts a pending proposal: a link proposal links the node to its target (type `related`,
 * weight the score), a PARA proposal assigns the node to the item (as a person's assignment).
 * A link or assignment the node already holds is left as it is (`created: false`). A target
 * deleted (node) or archived or gone (PARA item) since answers 409, the proposal staying pending.
 */
export async function acceptProposal(
  ctx: GraphContext,
  identity: Identity,
  nodeId: string,
  id: string,
): Promise<ProposalDecision> {
  const tenantId = identity.tenantId;
  const row = await pendingProposal(ctx, tenantId, nodeId, id);
  if (row.kind === 'link') {
    return tenantWrite(ctx, tenantId, async (tx) => {
      if (!(await findNode(tx, tenantId, row.targetId)))
        throw conflict(
          `The proposed target node ${row.targetId} (“${row.targetTitle}”) was deleted since; dismiss the proposal`,
        );
      const before = await linksOf(tx, tenantId, nodeId);
      const held = before.find((l) => l.targetId === row.targetId);
      const decided = await acceptLocked(ctx, tx, tenantId, row);
      if (held) return { proposal: toProposal(decided), link: toLink(held), para_assignment: null, created: false };
      const keep = before.map((l) => ({ target_id: l.targetId, type: l.type, weight: l.weight }));
      const link = { target_id: row.targetId, type: ACCEPTED_LINK_TYPE, weight: acceptedWeight(row.score) };
      const after = await applyLinks(ctx, tx, tenantId, nodeId, [...keep, link]);
      const made = after.find((l) => l.targetId === row.targetId)!;
      return { proposal: toProposal(decided), link: toLink(made), para_assignment: null, created: true };
    });
  }
  const held = ((await assignmentsOf(ctx.db, tenantId, [nodeId])).get(nodeId) ?? []).map((a) => a.paraItemId);
  if (!held.includes(row.targetId)) {
    try {
      await checkAssignable(ctx, identity, [row.targetId]);
    } catch (err) {
      if (err instanceof AppError && err.kind === 'invalid')
        throw conflict(
          `The proposed PARA item ${row.targetId} (“${row.targetTitle}”) is archived or no longer exists; dismiss the proposal`,
        );
      throw err;
    }
  }
  return tenantWrite(ctx, tenantId, async (tx) => {
    const current = ((await assignmentsOf(tx, tenantId, [nodeId])).get(nodeId) ?? []).map((a) => a.paraItemId);
    const decided = await acceptLocked(ctx, tx, tenantId, row);
    const created = !current.includes(row.targetId);
    if (created) {
      await replaceAssignments(tx, tenantId, nodeId, [...current, row.targetId], ctx.now());
      const [updated] = await syncActiveIds(tx, tenantId, [nodeId]);
      if (!updated) throw notFound('Node');
      const version = await recordWrite(tx, tenantId, {}, nodeChange(updated));
      await nodeUpdated(tx, updated, ['para_item_ids'], version, ctx.now());
    }
    const assignment = (await assignmentsOf(tx, tenantId, [nodeId]))
      .get(nodeId)!
      .find((a) => a.paraItemId === row.targetId)!;
    return {
      proposal: toProposal(decided),
      link: null,
      para_assignment: {
        para_item_id: assignment.paraItemId,
        state: assignment.state,
        assigned_by: assignment.assignedBy,
        score: assignment.score,
        assigned_at: iso(assignment.assignedAt),
      },
      created,
    };
  });
}

/** Dismisses a pending proposal (nothing else changes); 409 once decided. */
export async function dismissProposal(ctx: GraphContext, tenantId: string, nodeId: string, id: string) {
  await pendingProposal(ctx, tenantId, nodeId, id);
  const decided = await decide(ctx.db, tenantId, id, 'dismissed', ctx.now());
  if (!decided) throw conflict('The proposal was already decided');
  return toProposal(decided);
}
