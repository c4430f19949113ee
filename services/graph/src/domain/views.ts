import { isId, notFound, type Identity, type NeighborsQuery } from '@kg/contracts';
import { countStale, readStats } from '../store/stats';
import { linkPage, viewNodes, type EdgeRow, type Position, type ViewNode } from '../store/views';
import type { TenantGraph } from './tenant-graph';
import type { GraphContext } from './context';
import type { NeighborCursor, ViewContext } from './view-context';
import { placements } from './para-placement';

export type { NeighborCursor, ViewContext } from './view-context';

const STALE_AFTER_MS = 30 * 24 * 3600 * 1000;
const toEdge = (e: EdgeRow) => ({ source: e.source, target: e.target, link_type: e.type, weight: e.weight });

export { seedView, seedViewFromDatabase } from './seed-view';

/** Where a neighbours page is read: the tenant's memory graph when current, else the database. */
interface NeighbourSource {
  visible(id: string): Promise<boolean>;
  page(id: string, direction: 'out' | 'in', after: Position | null, limit: number): Promise<EdgeRow[]>;
  details(ids: string[]): Promise<ViewNode[]>;
}

const databaseNeighbours = (ctx: GraphContext, tenantId: string): NeighbourSource => ({
  visible: async (id) => isId('node', id) && (await viewNodes(ctx.db, tenantId, [id])).length > 0,
  page: (id, direction, after, limit) => linkPage(ctx.db, tenantId, id, direction, after, limit),
  details: (ids) => viewNodes(ctx.db, tenantId, ids),
});

/**
 * The same keyset pages over the memory graph. Links are stored from both ends with one
 * weight, so a node's adjacency (weight desc, then the other end's id) is the order of both
 * directions; `in` only turns each edge around.
 */
const memoryNeighbours = (graph: TenantGraph): NeighbourSource => ({
  visible: async (id) => graph.visible(id) !== undefined,
  page: async (id, direction, after, limit) => {
    const rows: EdgeRow[] = [];
    for (const e of graph.nodes.get(id)?.adj ?? []) {
      const target = graph.idAt[e.slot]!;
      if (after && (e.weight > after.weight || (e.weight === after.weight && target <= after.id))) continue;
      if (!graph.visibleAt[e.slot]) continue;
      rows.push(
        direction === 'out'
          ? { source: id, target, type: e.type, weight: e.weight }
          : { source: target, target: id, type: e.type, weight: e.weight },
      );
      if (rows.length > limit) break;
    }
    return rows;
  },
  details: async (ids) =>
    ids.flatMap((id) => {
      const n = graph.visible(id);
      return n ? [{ id, title: n.title, paraItemIds: n.para, connectionCount: n.adj.length }] : [];
    }),
});

/**
 * GET /graph/neighbors/:id: keyset pages per direction behind one opaque server-side cursor,
 * from the tenant's memory graph when it is current (no statement at all in the embedded
 * mode), from the database otherwise.
 */
export async function neighborsView(ctx: ViewContext, identity: Identity, id: string, q: NeighborsQuery) {
  const graph = await ctx.graphs.current(identity.tenantId);
  if (graph) return neighboursFrom(ctx, identity, id, q, memoryNeighbours(graph));
  return ctx.graphs.fromDatabase(() =>
    neighboursFrom(ctx, identity, id, q, databaseNeighbours(ctx, identity.tenantId)),
  );
}

/** The neighbours page answered from the database (tests compare it with the memory one). */
export const neighborsViewFromDatabase = (ctx: ViewContext, identity: Identity, id: string, q: NeighborsQuery) =>
  neighboursFrom(ctx, identity, id, q, databaseNeighbours(ctx, identity.tenantId));

async function neighboursFrom(
  ctx: ViewContext,
  identity: Identity,
  id: string,
  q: NeighborsQuery,
  source: NeighbourSource,
) {
  const tenantId = identity.tenantId;
  const binding = `${tenantId}|${id}|${q.direction}`;
  // Both read at once; an unknown node answers 404 before a bad cursor's 400.
  const [visible, resumed] = await Promise.allSettled([
    source.visible(id),
    q.cursor
      ? ctx.cursors.resume(q.cursor, binding)
      : Promise.resolve<NeighborCursor>(q.direction === 'both' ? { out: null, in: null } : { [q.direction]: null }),
  ]);
  if (visible.status === 'rejected') throw visible.reason;
  if (!visible.value) throw notFound('Node');
  if (resumed.status === 'rejected') throw resumed.reason;
  const state = resumed.value;
  const next: NeighborCursor = {};
  const edges: EdgeRow[] = [];
  for (const direction of ['out', 'in'] as const) {
    if (!(direction in state)) continue;
    const rows = await source.page(id, direction, state[direction] ?? null, q.limit);
    const page = rows.slice(0, q.limit);
    edges.push(...page);
    const last = page.at(-1);
    if (rows.length > q.limit && last)
      next[direction] = { weight: last.weight, id: direction === 'out' ? last.target : last.source };
  }
  const neighbourIds = [...new Set(edges.map((e) => (e.source === id ? e.target : e.source)))];
  // The cursor is written while the page's nodes are read: no extra round trip on the way.
  const [details, nextCursor] = await Promise.all([
    source.details(neighbourIds),
    Object.keys(next).length ? ctx.cursors.issue(binding, next) : Promise.resolve(null),
  ]);
  const byId = new Map(details.map((d) => [d.id, d]));
  const place = await placements(
    ctx,
    identity,
    details.map((d) => d.paraItemIds),
  );
  return {
    node_id: id,
    nodes: neighbourIds.flatMap((n) => {
      const d = byId.get(n);
      if (!d) return [];
      const { para_category, para_item_id } = place(d.paraItemIds);
      return [
        {
          id: n,
          title: d.title,
          para_category,
          para_item_id,
          connection_count: d.connectionCount,
          newly_added: true as const,
        },
      ];
    }),
    edges: edges.map(toEdge),
    next_cursor: nextCursor,
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
