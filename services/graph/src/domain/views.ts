import { isId, notFound, type Identity, type NeighborsQuery, type SeedQuery } from '@kg/contracts';
import type { CursorStore } from '@kg/kv';
import { countStale, readStats } from '../store/stats';
import { linkPage, viewNodes, type EdgeRow, type Position, type ViewNode } from '../store/views';
import { boundedBfs, frontierOf, type BfsResult } from './bfs';
import { boundedBfsFromDb, edgesAmongFromDb, hubFromDb } from '../store/seed';
import type { TenantGraph } from './tenant-graph';
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

/** What the seed view reads: the tenant's in-memory graph, or the database while that loads. */
interface SeedSource {
  hub(): Promise<string | null>;
  visible(id: string): Promise<boolean>;
  bfs(seed: string, depth: number, maxNodes: number): Promise<BfsResult>;
  /** Title, PARA items and connection count of result nodes. */
  details(ids: string[]): Promise<Map<string, { title: string; paraItemIds: string[]; connectionCount: number }>>;
  /** Links among the result nodes, each from both ends, in result order then strongest first. */
  edgesAmong(ids: string[]): Promise<Array<{ source: string; target: string; type: string; weight: number }>>;
}

function memorySource(graph: TenantGraph): SeedSource {
  return {
    hub: async () => graph.hub(),
    visible: async (id) => graph.visible(id) !== undefined,
    bfs: (seed, depth, maxNodes) => boundedBfs(seed, depth, maxNodes, graph.load),
    details: async (ids) =>
      new Map(
        ids.map((id) => {
          const n = graph.nodes.get(id)!;
          return [id, { title: n.title, paraItemIds: n.para, connectionCount: n.adj.length }];
        }),
      ),
    edgesAmong: async (ids) => {
      // A 500-node view scans ~13k adjacency entries: one plain pass, no intermediate arrays.
      const inside = new Set(ids);
      const out: Array<{ source: string; target: string; type: string; weight: number }> = [];
      for (const id of ids) {
        for (const e of graph.nodes.get(id)!.adj)
          if (inside.has(e.target)) out.push({ source: id, target: e.target, type: e.type, weight: e.weight });
      }
      return out;
    },
  };
}

function databaseSource(ctx: GraphContext, tenantId: string): SeedSource {
  return {
    hub: () => hubFromDb(ctx.db, tenantId),
    visible: async (id) => (await viewNodes(ctx.db, tenantId, [id])).length > 0,
    bfs: (seed, depth, maxNodes) => boundedBfsFromDb(ctx.db, tenantId, seed, depth, maxNodes),
    details: async (ids) => new Map((await viewNodes(ctx.db, tenantId, ids)).map((n) => [n.id, n])),
    edgesAmong: async (ids) => {
      const order = new Map(ids.map((id, i) => [id, i]));
      const rows = await edgesAmongFromDb(ctx.db, tenantId, ids);
      return rows.sort(
        (a, b) =>
          order.get(a.source)! - order.get(b.source)! ||
          b.weight - a.weight ||
          (a.target < b.target ? -1 : a.target > b.target ? 1 : 0),
      );
    },
  };
}

/**
 * GET /graph/seed: bounded BFS around a seed (default: the hub), walked over the tenant's
 * in-memory graph, which is brought up to the latest committed write first. While that
 * graph is not in memory (a fresh process, a tenant evicted) it loads in the background and
 * this view walks the same rules over keyset queries instead: no request waits for a load.
 *
 * Over the memory graph, the walk's result (everything but the PARA placements, which the
 * PARA service owns and are resolved on every request) is kept by tenant, graph version and
 * query (`GraphCache.seeds`): a dashboard asking for the same view again skips the walk, and
 * after any write of the tenant the next view walks its new version.
 */
export async function seedView(ctx: ViewContext, identity: Identity, q: SeedQuery) {
  const graph = await ctx.graphs.current(identity.tenantId);
  if (graph) {
    const { version } = graph;
    const query = `${q.seed ?? ''}|${q.depth}|${q.max_nodes}`;
    let core = ctx.graphs.seeds.get(identity.tenantId, version, query) as SeedCore | undefined;
    if (!core) {
      core = await seedCore(q, memorySource(graph));
      ctx.graphs.seeds.set(identity.tenantId, version, query, core, core.ids.length + core.edges.length);
    }
    return seedAnswer(ctx, identity, q, core);
  }
  return ctx.graphs.fromDatabase(() => seedFrom(ctx, identity, q, databaseSource(ctx, identity.tenantId)));
}

/** The seed view answered from the database (tests compare it with the in-memory walk). */
export const seedViewFromDatabase = (ctx: ViewContext, identity: Identity, q: SeedQuery) =>
  seedFrom(ctx, identity, q, databaseSource(ctx, identity.tenantId));

/** What a seed view holds before PARA placements: read-only once made (answers share it). */
interface SeedCore {
  seedId: string | null;
  ids: string[];
  depths: Map<string, number>;
  details: Map<string, { title: string; paraItemIds: string[]; connectionCount: number }>;
  edges: Array<{ source: string; target: string; link_type: string; weight: number }>;
  frontierIds: string[];
}

async function seedFrom(ctx: ViewContext, identity: Identity, q: SeedQuery, source: SeedSource) {
  return seedAnswer(ctx, identity, q, await seedCore(q, source));
}

async function seedCore(q: SeedQuery, source: SeedSource): Promise<SeedCore> {
  if (q.seed !== undefined && (!isId('node', q.seed) || !(await source.visible(q.seed)))) throw notFound('Node');
  const seedId = q.seed ?? (await source.hub());
  if (!seedId) return { seedId: null, ids: [], depths: new Map(), details: new Map(), edges: [], frontierIds: [] };
  const bfs = await source.bfs(seedId, q.depth, q.max_nodes);
  const ids = [...bfs.depths.keys()];
  const inside = new Map<string, number>();
  const edges: SeedCore['edges'] = [];
  for (const e of await source.edgesAmong(ids)) {
    inside.set(e.source, (inside.get(e.source) ?? 0) + 1);
    if (e.source < e.target) edges.push({ source: e.source, target: e.target, link_type: e.type, weight: e.weight });
  }
  const details = await source.details(ids);
  const frontierIds = frontierOf(
    bfs,
    (id) => details.get(id)?.connectionCount ?? 0,
    (id) => inside.get(id) ?? 0,
  );
  return { seedId, ids, depths: bfs.depths, details, edges, frontierIds };
}

async function seedAnswer(ctx: ViewContext, identity: Identity, q: SeedQuery, core: SeedCore) {
  const place = await placements(
    ctx,
    identity,
    core.ids.map((id) => ({ id, paraItemIds: core.details.get(id)!.paraItemIds })),
  );
  const nodes = core.ids.map((id) => {
    const n = core.details.get(id)!;
    return { id, title: n.title, ...place.get(id)!, connection_count: n.connectionCount, depth: core.depths.get(id)! };
  });
  return {
    seed_id: core.seedId,
    nodes,
    edges: core.edges,
    frontier_ids: core.frontierIds,
    meta: { node_count: nodes.length, edge_count: core.edges.length, depth: q.depth },
  };
}

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
      if (after && (e.weight > after.weight || (e.weight === after.weight && e.target <= after.id))) continue;
      if (!graph.visible(e.target)) continue;
      rows.push(
        direction === 'out'
          ? { source: id, target: e.target, type: e.type, weight: e.weight }
          : { source: e.target, target: id, type: e.type, weight: e.weight },
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
