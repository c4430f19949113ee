import {
  isId,
  notFound,
  notImplemented,
  type CreateNodeInput,
  type Identity,
  type ListNodesInput,
  type Node,
  type UpdateNodeInput,
} from '@kg/contracts';
import { iso, newId, type DbOrTx } from '@kg/db';
import {
  assignmentsOf,
  findNodeWithAssignments,
  replaceAssignments,
  syncActiveIds,
  type NodeAssignment,
} from '../store/assignments';
import { checkAssignable } from './assignments';
import { keywordPage } from './keyword';
import {
  deleteNode,
  findNode,
  insertNode,
  listNodes,
  updateNode,
  type NodeFields,
  type StoredNode,
} from '../store/nodes';
import { detachNode, recountConnections } from '../store/links';
import { recordWrite } from '../store/stats';
import { nodeChange } from './change';
import type { GraphContext } from './context';
import { changedFields, nodeCreated, nodeDeleted, nodeUpdated } from './events';
import { tenantWrite } from './write';

/**
 * The API's node. `para_item_ids` lists every association the node holds, archived ones
 * included (a node keeps the link to an archived item; a PATCH that sends the list back
 * keeps it); `para_assignments` says which count (`active`) and who made each.
 */
export const toNode = (n: StoredNode, assignments: NodeAssignment[]): Node => ({
  id: n.id,
  title: n.title,
  summary: n.summary,
  body_markdown: n.bodyMarkdown,
  tags: n.tags,
  para_item_ids: assignments.map((a) => a.paraItemId),
  para_assignments: assignments.map((a) => ({
    para_item_id: a.paraItemId,
    state: a.state,
    assigned_by: a.assignedBy,
    score: a.score,
    assigned_at: iso(a.assignedAt),
  })),
  status: n.status,
  source_capture_id: n.sourceCaptureId,
  created_at: iso(n.createdAt),
  updated_at: iso(n.updatedAt),
});

export async function createNode(ctx: GraphContext, identity: Identity, input: CreateNodeInput): Promise<Node> {
  const paraItemIds = await checkAssignable(ctx, identity, input.para_item_ids);
  const node = await tenantWrite(ctx, identity.tenantId, async (tx) => {
    const created = await insertNode(tx, {
      id: newId('node'),
      tenantId: identity.tenantId,
      title: input.title,
      summary: input.summary,
      bodyMarkdown: input.content,
      tags: input.tags,
      paraItemIds,
    });
    await replaceAssignments(tx, identity.tenantId, created.id, paraItemIds, ctx.now());
    const version = await recordWrite(tx, identity.tenantId, { nodes: 1 }, nodeChange(created));
    await nodeCreated(tx, created, version, ctx.now());
    return created;
  });
  return withAssignments(ctx.db, node);
}

async function withAssignments(db: DbOrTx, node: StoredNode): Promise<Node> {
  const assignments = await assignmentsOf(db, node.tenantId, [node.id]);
  return toNode(node, assignments.get(node.id) ?? []);
}

export async function getNode(ctx: GraphContext, tenantId: string, id: string): Promise<Node> {
  const found = isId('node', id) ? await findNodeWithAssignments(ctx.db, tenantId, id) : null;
  if (!found) throw notFound('Node');
  return toNode(found.node, found.assignments);
}

/**
 * Applies any subset of fields. Decision: every successful PATCH is a write, so
 * updated_at moves and node.updated is emitted even for an empty or no-op patch (its
 * `changed` is then []); docs/API.md publishes this. The node is otherwise unchanged.
 */
export async function patchNode(
  ctx: GraphContext,
  identity: Identity,
  id: string,
  patch: UpdateNodeInput,
): Promise<Node> {
  const tenantId = identity.tenantId;
  if (!isId('node', id)) throw notFound('Node');
  // Extension: para_item_ids replaces the node's assignments (checked before taking the lock).
  const paraItemIds =
    patch.para_item_ids === undefined
      ? undefined
      : await checkAssignable(
          ctx,
          identity,
          patch.para_item_ids,
          new Set(((await assignmentsOf(ctx.db, tenantId, [id])).get(id) ?? []).map((a) => a.paraItemId)),
        );
  const fields: Partial<NodeFields> = {
    ...(patch.title !== undefined ? { title: patch.title } : {}),
    ...(patch.content !== undefined ? { bodyMarkdown: patch.content } : {}),
    ...(patch.summary !== undefined ? { summary: patch.summary } : {}),
    ...(patch.tags !== undefined ? { tags: patch.tags } : {}),
    ...(patch.status !== undefined ? { status: patch.status } : {}),
  };
  const node = await tenantWrite(ctx, tenantId, async (tx) => {
    const before = await findNode(tx, tenantId, id, true);
    let updated = before && (await updateNode(tx, tenantId, id, fields, ctx.now()));
    if (!before || !updated) throw notFound('Node');
    if (paraItemIds) {
      await replaceAssignments(tx, tenantId, id, paraItemIds, ctx.now());
      updated = (await syncActiveIds(tx, tenantId, [id]))[0] ?? null;
      if (!updated) throw notFound('Node');
    }
    const changed = changedFields(before, updated);
    if (before.paraItemIds.join() !== updated.paraItemIds.join()) changed.push('para_item_ids');
    const validated = Number(updated.status === 'validated') - Number(before.status === 'validated');
    const version = await recordWrite(tx, tenantId, { validated }, nodeChange(updated));
    await nodeUpdated(tx, updated, changed, version, ctx.now());
    return updated;
  });
  return withAssignments(ctx.db, node);
}

/** Deletes a node with its links in both directions; neighbours' counts follow. */
export async function removeNode(ctx: GraphContext, tenantId: string, id: string): Promise<void> {
  if (!isId('node', id)) throw notFound('Node');
  await tenantWrite(ctx, tenantId, async (tx) => {
    const node = await findNode(tx, tenantId, id, true);
    if (!node) throw notFound('Node');
    const neighbours = await detachNode(tx, tenantId, id);
    await deleteNode(tx, tenantId, id);
    await recountConnections(tx, tenantId, neighbours);
    const delta = { nodes: -1, validated: node.status === 'validated' ? -1 : 0, links: -neighbours.length };
    const version = await recordWrite(tx, tenantId, delta, { k: 'del', id });
    await nodeDeleted(tx, tenantId, id, neighbours, version, ctx.now());
  });
}

/**
 * GET /nodes. Keyword search (BM25, domain/keyword.ts) when a query is given; a blank
 * query lists like no query, and a query of stop words or punctuation only matches nothing.
 */
export async function searchNodes(ctx: GraphContext, tenantId: string, q: ListNodesInput) {
  if (q.mode === 'semantic' || q.mode === 'hybrid') throw notImplemented('Semantic and hybrid search');
  const filter = {
    ...(q.status ? { status: q.status } : {}),
    ...(q.para_item_id !== undefined ? { paraItemId: q.para_item_id } : {}),
    ...(q.orphan !== undefined ? { orphan: q.orphan } : {}),
    ...(q.source_capture_id !== undefined ? { sourceCaptureId: q.source_capture_id } : {}),
  };
  const offset = (q.page - 1) * q.per_page;
  const { rows, total } =
    q.query !== undefined && q.query.trim() !== ''
      ? await keywordPage(ctx.db, tenantId, q.query, filter, q.per_page, offset)
      : await listNodes(ctx.db, tenantId, filter, q.per_page, offset);
  const assignments = await assignmentsOf(
    ctx.db,
    tenantId,
    rows.map((r) => r.id),
  );
  return {
    data: rows.map((r) => toNode(r, assignments.get(r.id) ?? [])),
    total,
    page: q.page,
    per_page: q.per_page,
  };
}
