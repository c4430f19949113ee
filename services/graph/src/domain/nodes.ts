import {
  invalid,
  isId,
  notFound,
  notImplemented,
  type CreateNodeInput,
  type Identity,
  type ListNodesInput,
  type Node,
  type UpdateNodeInput,
} from '@kg/contracts';
import { iso, newId } from '@kg/db';
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
import type { GraphContext } from './context';
import { changedFields, nodeCreated, nodeDeleted, nodeUpdated } from './events';
import { tenantWrite } from './write';

export const toNode = (n: StoredNode): Node => ({
  id: n.id,
  title: n.title,
  summary: n.summary,
  body_markdown: n.bodyMarkdown,
  tags: n.tags,
  para_item_ids: n.paraItemIds,
  status: n.status,
  created_at: iso(n.createdAt),
  updated_at: iso(n.updatedAt),
});

const nodeChange = (n: StoredNode) => ({
  k: 'node' as const,
  id: n.id,
  title: n.title,
  status: n.status,
  para: n.paraItemIds,
});

/** Every PARA id must name an item of the caller's tenant (asked of the PARA service). */
async function checkParaItems(ctx: GraphContext, identity: Identity, ids: string[]): Promise<string[]> {
  const unique = [...new Set(ids)];
  if (unique.length === 0) return [];
  const { items } = await ctx.para.as(identity).items.resolve({ ids: unique });
  const known = new Set(items.map((i) => i.id));
  const errors = ids
    .map((id, i) => ({ id, path: `para_item_ids.${i}` }))
    .filter((e) => !known.has(e.id))
    .map((e) => ({ path: e.path, message: 'no such PARA item' }));
  if (errors.length) throw invalid('Unknown PARA item', errors);
  return unique;
}

export async function createNode(ctx: GraphContext, identity: Identity, input: CreateNodeInput): Promise<Node> {
  const paraItemIds = await checkParaItems(ctx, identity, input.para_item_ids);
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
    const version = await recordWrite(tx, identity.tenantId, { nodes: 1 }, nodeChange(created));
    await nodeCreated(tx, created, version, ctx.now());
    return created;
  });
  return toNode(node);
}

export async function getNode(ctx: GraphContext, tenantId: string, id: string): Promise<Node> {
  const node = isId('node', id) ? await findNode(ctx.db, tenantId, id) : null;
  if (!node) throw notFound('Node');
  return toNode(node);
}

/**
 * Applies any subset of fields. Decision: every successful PATCH is a write, so
 * updated_at moves and node.updated is emitted even for an empty or no-op patch (its
 * `changed` is then []); docs/API.md publishes this. The node is otherwise unchanged.
 */
export async function patchNode(
  ctx: GraphContext,
  tenantId: string,
  id: string,
  patch: UpdateNodeInput,
): Promise<Node> {
  if (!isId('node', id)) throw notFound('Node');
  const fields: Partial<NodeFields> = {
    ...(patch.title !== undefined ? { title: patch.title } : {}),
    ...(patch.content !== undefined ? { bodyMarkdown: patch.content } : {}),
    ...(patch.summary !== undefined ? { summary: patch.summary } : {}),
    ...(patch.tags !== undefined ? { tags: patch.tags } : {}),
    ...(patch.status !== undefined ? { status: patch.status } : {}),
  };
  const node = await tenantWrite(ctx, tenantId, async (tx) => {
    const before = await findNode(tx, tenantId, id, true);
    const updated = before && (await updateNode(tx, tenantId, id, fields, ctx.now()));
    if (!before || !updated) throw notFound('Node');
    const validated = Number(updated.status === 'validated') - Number(before.status === 'validated');
    const version = await recordWrite(tx, tenantId, { validated }, nodeChange(updated));
    await nodeUpdated(tx, updated, changedFields(before, updated), version, ctx.now());
    return updated;
  });
  return toNode(node);
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
 * GET /nodes. Keyword search is the interim default until semantic search lands; a
 * blank query lists like no query, and a query of stop words only matches nothing.
 */
export async function searchNodes(ctx: GraphContext, tenantId: string, q: ListNodesInput) {
  if (q.mode === 'semantic' || q.mode === 'hybrid') throw notImplemented('Semantic and hybrid search');
  const { rows, total } = await listNodes(
    ctx.db,
    tenantId,
    {
      ...(q.status ? { status: q.status } : {}),
      ...(q.para_item_id !== undefined ? { paraItemId: q.para_item_id } : {}),
      ...(q.orphan !== undefined ? { orphan: q.orphan } : {}),
      ...(q.query !== undefined && q.query.trim() !== '' ? { query: q.query } : {}),
    },
    q.per_page,
    (q.page - 1) * q.per_page,
  );
  return { data: rows.map(toNode), total, page: q.page, per_page: q.per_page };
}
