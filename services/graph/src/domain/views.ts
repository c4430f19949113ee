import { isId, notFound, type Identity, type NeighborsQuery, type SeedQuery } from '@kg/contracts';
import type { CursorStore } from '@kg/kv';
import { countStale, readStats } from '../store/stats';
import { linkPage, viewNodes, type EdgeRow, type Position, type ViewNode } from '../store/views';
import { boundedBfs, frontierOf } from './bfs';
import type { GraphCache } from './graph-cache';
import type { GraphContext } from './context';
import { placements } from './para-placement';

/** Per active direction, the position after the last edge served (null: from the start). */
export type NeighborCursor = { out?: Position | null; in?: Position | null };

export interface ViewContext extends GraphContext {
  cursors: CursorStore<NeighborCursor>;
  graphs: GraphCache;
}

const STALE_AFTER_MS = 30 * 24 * 3600 * 1000;
const toEdge = (e: EdgeRow) => ({ source: e.source, target: e.target, link_type: e.type, weight: e.weight });

async function visibleNode(ctx: GraphContext, tenantId: string, id: string): Promise<ViewNode> {
  const [node] = isId('node', id) ? await viewNodes(ctx.db, tenantId, [id]) : [];
  if (!node) throw notFound('Node');
  return node;
}

/**
 * GET /graph/seed: bounded BFS around a seed (default: the hub), walked over the tenant's
 * in-memory graph, which is brought up to the latest committed write first.
 */
export async function seedView(ctx: ViewContext, identity: Identity, q: SeedQuery) {
  const graph = await ctx.graphs.get(identity.tenantId);
  if (q.seed !== undefined && (!isId('node', q.seed) || !graph.visible(q.seed))) throw notFound('Node');
  const seedId = q.seed ?? graph.hub();
  if (!seedId) {
    return {
      seed_id: null,
      nodes: [],
      edges: [],
      frontier_ids: [],
      meta: { node_count: 0, edge_count: 0, depth: q.depth },
    };
  }
  const bfs = await boundedBfs(seedId, q.depth, q.max_nodes, graph.load);
  const inside = new Map<string, number>();
  const edges: Array<{ source: string; target: string; link_type: string; weight: number }> = [];
  for (const id of bfs.depths.keys()) {
    for (const e of graph.nodes.get(id)!.adj) {
      if (!bfs.depths.has(e.target)) continue;
      inside.set(id, (inside.get(id) ?? 0) + 1);
      if (id < e.target) edges.push({ source: id, target: e.target, link_type: e.type, weight: e.weight });
    }
  }
  const ids = [...bfs.depths.keys()];
  const details = ids.map((id) => ({ id, paraItemIds: graph.nodes.get(id)!.para }));
  const place = await placements(ctx, identity, details);
  const nodes = ids.map((id) => {
    const n = graph.nodes.get(id)!;
    return { id, title: n.title, ...place.get(id)!, connection_count: n.adj.length, depth: bfs.depths.get(id)! };
  });
  return {
    seed_id: seedId,
    nodes,
    edges,
    frontier_ids: frontierOf(
      bfs,
      (id) => graph.nodes.get(id)?.adj.length ?? 0,
      (id) => inside.get(id) ?? 0,
    ),
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
    if (rows.length > q.limit && last)
      next[direction] = { weight: last.weight, id: direction === 'out' ? last.target : last.source };
  }
  const neighbourIds = [...new Set(edges.map((e) => (e.source === id ? e.target : e.source)))];
  const details = await viewNodes(ctx.db, tenantId, neighbourIds);
  const byId = new Map(details.map((d) => [d.id, d]));
  const place = await placements(ctx, identity, details);
  return {
    node_id: id,
    nodes: neighbourIds
      .filter((n) => byId.has(n))
      .map((n) => ({
        id: n,
        title: byId.get(n)!.title,
        ...place.get(n)!,
        connection_count: byId.get(n)!.connectionCount,
        newly_added: true as const,
      })),
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
  return {
    total_nodes: stats.totalNodes,
    validated_nodes: stats.validatedNodes,
    total_links: stats.totalLinks,
    stale_nodes: stale,
  };
}
