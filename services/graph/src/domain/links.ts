import { invalid, isId, notFound, type FieldError, type ReplaceLinksInput } from '@kg/contracts';
import type { Tx } from '@kg/db';
import { findNode, existingIds } from '../store/nodes';
import { linksOf, recountConnections, related, unlink, upsertLinks, type LinkRow } from '../store/links';
import { recordWrite } from '../store/stats';
import type { GraphContext } from './context';
import { linksChanged } from './events';
import { tenantWrite } from './write';

export const toLink = (l: LinkRow) => ({ target_id: l.targetId, type: l.type, weight: l.weight });

/** Self-links and duplicate targets are rejected before touching the database. */
function checkShape(sourceId: string, links: ReplaceLinksInput['links']): void {
  const errors: FieldError[] = [];
  const seen = new Set<string>();
  links.forEach((l, i) => {
    if (l.target_id === sourceId)
      errors.push({ path: `links.${i}.target_id`, message: 'a node cannot link to itself' });
    else if (seen.has(l.target_id)) errors.push({ path: `links.${i}.target_id`, message: 'duplicate target' });
    seen.add(l.target_id);
  });
  if (errors.length) throw invalid('Invalid links', errors);
}

/**
 * Full replacement of a node's links, both directions, in one transaction. The tenant's
 * write lock, then the source row (FOR UPDATE) are taken first, so concurrent replacements
 * of one node, or of nodes sharing neighbours, serialize instead of deadlocking.
 * A replacement that changes nothing writes no event and no change-log entry.
 */
export async function replaceLinks(ctx: GraphContext, tenantId: string, id: string, input: ReplaceLinksInput['links']) {
  if (!isId('node', id)) throw notFound('Node');
  checkShape(id, input);
  const result = await tenantWrite(ctx, tenantId, (tx) => applyLinks(ctx, tx, tenantId, id, input));
  return { links: result.map(toLink) };
}

/**
 * The replacement inside a tenant write (replaceLinks; an accepted link proposal): the
 * source row is locked, targets checked, both directions written, counts, change log, event.
 */
export async function applyLinks(
  ctx: GraphContext,
  tx: Tx,
  tenantId: string,
  id: string,
  input: ReplaceLinksInput['links'],
): Promise<LinkRow[]> {
  if (!(await findNode(tx, tenantId, id, true))) throw notFound('Node');
  const wanted = input.filter((l) => isId('node', l.target_id)).map((l) => l.target_id);
  const existing = await existingIds(tx, tenantId, wanted);
  const unknown = input
    .map((l, i) => ({ l, i }))
    .filter(({ l }) => !existing.has(l.target_id))
    .map(({ i }) => ({ path: `links.${i}.target_id`, message: 'no such node' }));
  if (unknown.length) throw invalid('Unknown link target', unknown);
  const before = await linksOf(tx, tenantId, id);
  const keep = new Set(input.map((l) => l.target_id));
  const removed = before.map((l) => l.targetId).filter((t) => !keep.has(t));
  await unlink(tx, tenantId, id, removed);
  const rows = input.map((l) => ({ targetId: l.target_id, type: l.type, weight: l.weight }));
  await upsertLinks(tx, tenantId, id, rows);
  await recountConnections(tx, tenantId, [id, ...removed, ...keep]);
  const after = await linksOf(tx, tenantId, id);
  const previous = new Map(before.map((l) => [l.targetId, l]));
  // A link whose type or weight changed is reported as added (the event carries its new values).
  const added = after.filter((l) => {
    const p = previous.get(l.targetId);
    return !p || p.type !== l.type || p.weight !== l.weight;
  });
  if (added.length || removed.length) {
    const set = after.map((l) => ({ t: l.targetId, type: l.type, w: l.weight }));
    const change = { k: 'links' as const, id, set, removed };
    const version = await recordWrite(tx, tenantId, { links: after.length - before.length }, change);
    await linksChanged(tx, tenantId, id, added.map(toLink), removed.sort(), version, ctx.now());
  }
  return after;
}

export async function relatedNodes(ctx: GraphContext, tenantId: string, id: string, limit: number) {
  if (!isId('node', id) || !(await findNode(ctx.db, tenantId, id))) throw notFound('Node');
  const rows = await related(ctx.db, tenantId, id, limit);
  return {
    nodes: rows.map((r) => ({ id: r.id, title: r.title, summary: r.summary, relationship_type: r.relationshipType })),
  };
}
