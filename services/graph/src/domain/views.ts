import { isId, notFound, type Identity, type NeighborsQuery, type SeedQuery } from '@kg/contracts';
import type { CursorStore } from '@kg/kv';
import { countStale, readStats } from '../store/stats';
import { hubId, linkPage, linksAmong, strongestLinks, viewNodes, type EdgeRow, type Position, type ViewNode } from '../store/views';
import { boundedBfs, frontierOf, type NeighbourEdge, type NeighbourLoader } from './bfs';
import type { GraphContext } from './context';
import { placements } from './para-placement';

/** Per active direction, the position after the last edge served (null: from the start). */
export type NeighborCursor = { out?: Position | null; in?: Position | null };

export interface ViewContext extends GraphContext {
  cursors: CursorStore<NeighborCursor>;
}

const STALE_AFTER_MS = 30 * 24 * 3600 * 1000;
const toEdge = (e: EdgeRow) => ({ source: e.source, target: e.target, link_type: e.type, weight: e.weight });

async function visibleNode(ctx: GraphContext, tenantId: string, id: string): Promise<ViewNode> {
  const [node] = isId('node', id) ? await viewNodes(ctx.db, tenantId, [id]) : [];
  if (!node) throw notFound('Node');
  return node;
}

function sqlLoader(ctx: GraphContext, tenantId: string): NeighbourLoader {
  return async (ids, perNode) => {
    const byNode = new Map<string, NeighbourEdge[]>();
    for (const row of await strongestLinks(ctx.db, tenantId, ids, perNode)) {
      const list = byNode.get(row.source) ?? [];
      list.push({ target: row.target, weight: row.weight });
      byNode.set(row.source, list);
    }
    return byNode;
  };
}

/** GET /graph/seed: bounded BFS around a seed (default: the hub). */
export async function seedView(ctx: GraphContext, identity: Identity, q: SeedQuery) {
  const tenantId = identity.tenantId;
  const seedId = q.seed !== undefined ? (await visibleNode(ctx, tenantId, q.seed)).id : await hubId(ctx.db, tenantId);
  if (!seedId) return { seed_id: null, nodes: [], edges: [], frontier_ids: [], meta: { node_count: 0, edge_count: 0, depth: q.depth } };
  const bfs = await boundedBfs(seedId, q.depth, q.max_nodes, sqlLoader(ctx, tenantId));
  const ids = [...bfs.depths.keys()];
  const [details, edges] = await Promise.all([viewNodes(ctx.db, tenantId, ids), linksAmong(ctx.db, tenantId, ids)]);
  const byId = new Map(details.map((d) => [d.id, d]));
  const inside = new Map<string, number>();
  for (const e of edges) for (const end of [e.source, e.target]) inside.set(end, (inside.get(end) ?? 0) + 1);
  const place = await placements(ctx, identity, details);
  const nodes = ids
    .filter((id) => byId.has(id))
    .map((id) => ({ id, title: byId.get(id)!.title, ...place.get(id)!, connection_count: byId.get(id)!.connectionCount, depth: bfs.depths.get(id)! }));
  return {
    seed_id: seedId,
    nodes,
    edges: edges.map(toEdge),
    frontier_ids: frontierOf(bfs, (id) => byId.get(id)?.connectionCount ?? 0, (id) => inside.get(id) ?? 0),
    meta: { node_count: nodes.length, edge_count: edges.length, depth: q.depth },
  };
}

/** GET /graph/neighbors/:id: keyset pages per direction behind one opaque server-side cursor. */
export async function neighborsView(ctx: ViewContext, identity: Identity, id: string, q: NeighborsQuery) {
  const tenantId = identity.tenantId;
  await visibleNode(ctx, tenantId, id);
  const binding = `${tenantId}|${id}|${q.direction}`;
  const state: NeighborCursor = q.cursor
    ? await ctx.cursors.resume(q.cursor, binding)
    : q.direction === 'both'
      ? { out: null, in: null }
      : { [q.direction]: null };
  const next: NeighborCursor = {};
  const edges: EdgeRow[] = [];
  for (const direction of ['out', 'in'] as const) {
    if (!(direction in state)) continue;
    const rows = await linkPage(ctx.db, tenantId, id, direction, state[direction] ?? null, q.limit);
    const page = rows.slice(0, q.limit);
    edges.push(...page);
    const last = page.at(-1);
    if (rows.length > q.limit && last) next[direction] = { weight: last.weight, id: direction === 'out' ? last.target : last.source };
  }
  const neighbourIds = [...new Set(edges.map((e) => (e.source === id ? e.target : e.source)))];
  const details = await viewNodes(ctx.db, tenantId, neighbourIds);
  const byId = new Map(details.map((d) => [d.id, d]));
  const place = await placements(ctx, identity, details);
  return {
    node_id: id,
    nodes: neighbourIds
      .filter((n) => byId.has(n))
      .map((n) => ({ id: n, title: byId.get(n)!.title, ...place.get(n)!, connection_count: byId.get(n)!.connectionCount, newly_added: true as const })),
    edges: edges.map(toEdge),
    next_cursor: Object.keys(next).length ? await ctx.cursors.issue(binding, next) : null,
  };
}

/** Counts from maintained counters; stale nodes from a partial index of raw nodes. */
export async function graphHealth(ctx: GraphContext, tenantId: string) {
  const [stats, stale] = await Promise.all([
    readStats(ctx.db, tenantId),
    countStale(ctx.db, tenantId, new Date(ctx.now().getTime() - STALE_AFTER_MS)),
  ]);
  return { total_nodes: stats.totalNodes, validated_nodes: stats.validatedNodes, total_links: stats.totalLinks, stale_nodes: stale };
}
