import { isId, notFound, type Identity, type SeedQuery } from '@kg/contracts';
import { viewNodes } from '../store/views';
import { boundedBfsFromDb, edgesAmongFromDb, hubFromDb } from '../store/seed';
import { frontierOf, type BfsResult } from './bfs';
import { EMPTY_CORE, weightOf, type SeedCore } from './seed-core';
import { walkSeed } from './seed-walk';
import type { TenantGraph } from './tenant-graph';
import type { GraphContext } from './context';
import { placements } from './para-placement';
import type { ViewContext } from './view-context';

/**
 * What the generic seed walk reads: the database while the tenant's memory graph loads (the
 * memory graph has its own walk over slots, seed-walk.ts, held to this one by tests).
 */
export interface SeedSource {
  hub(): Promise<string | null>;
  visible(id: string): Promise<boolean>;
  bfs(seed: string, depth: number, maxNodes: number): Promise<BfsResult>;
  /** Title, PARA items and connection count of result nodes. */
  details(ids: string[]): Promise<Map<string, { title: string; paraItemIds: string[]; connectionCount: number }>>;
  /** Links among the result nodes, each from both ends, in result order then strongest first. */
  edgesAmong(ids: string[]): Promise<Array<{ source: string; target: string; type: string; weight: number }>>;
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
    let core = ctx.graphs.seeds.get(identity.tenantId, version, query);
    if (!core) {
      core = memoryCore(graph, q);
      ctx.graphs.seeds.set(identity.tenantId, version, query, core, weightOf(core));
    }
    return seedAnswer(ctx, identity, q, core);
  }
  return ctx.graphs.fromDatabase(() => seedFrom(ctx, identity, q, databaseSource(ctx, identity.tenantId)));
}

/** The seed view answered from the database (tests compare it with the in-memory walk). */
export const seedViewFromDatabase = (ctx: ViewContext, identity: Identity, q: SeedQuery) =>
  seedFrom(ctx, identity, q, databaseSource(ctx, identity.tenantId));

async function seedFrom(ctx: ViewContext, identity: Identity, q: SeedQuery, source: SeedSource) {
  return seedAnswer(ctx, identity, q, await seedCore(q, source));
}

/** The walk over the memory graph's slots. */
function memoryCore(graph: TenantGraph, q: SeedQuery): SeedCore {
  if (q.seed !== undefined && (!isId('node', q.seed) || !graph.visible(q.seed))) throw notFound('Node');
  const seedId = q.seed ?? graph.hub();
  return seedId ? walkSeed(graph, seedId, q.depth, q.max_nodes) : EMPTY_CORE;
}

/** The walk over ids, through a source (the database; tests also run it over the memory graph). */
export async function seedCore(q: SeedQuery, source: SeedSource): Promise<SeedCore> {
  if (q.seed !== undefined && (!isId('node', q.seed) || !(await source.visible(q.seed)))) throw notFound('Node');
  const seedId = q.seed ?? (await source.hub());
  if (!seedId) return EMPTY_CORE;
  const bfs = await source.bfs(seedId, q.depth, q.max_nodes);
  const ids = [...bfs.depths.keys()];
  const position = new Map(ids.map((id, i) => [id, i]));
  const inside = new Int32Array(ids.length);
  const sources: number[] = [];
  const targets: number[] = [];
  const types: string[] = [];
  const weights: number[] = [];
  for (const e of await source.edgesAmong(ids)) {
    const from = position.get(e.source)!;
    inside[from]!++;
    if (e.source < e.target) {
      sources.push(from);
      targets.push(position.get(e.target)!);
      types.push(e.type);
      weights.push(e.weight);
    }
  }
  const details = await source.details(ids);
  const connectionCounts = Int32Array.from(ids, (id) => details.get(id)!.connectionCount);
  const frontierIds = frontierOf(
    bfs,
    (id) => connectionCounts[position.get(id)!] ?? 0,
    (id) => inside[position.get(id)!] ?? 0,
  );
  return {
    seedId,
    ids,
    depths: Uint8Array.from(ids, (id) => bfs.depths.get(id)!),
    titles: ids.map((id) => details.get(id)!.title),
    paraItemIds: ids.map((id) => details.get(id)!.paraItemIds),
    connectionCounts,
    edgeSource: Int32Array.from(sources),
    edgeTarget: Int32Array.from(targets),
    edgeWeight: Float64Array.from(weights),
    edgeType: types,
    frontierIds,
  };
}

async function seedAnswer(ctx: ViewContext, identity: Identity, q: SeedQuery, core: SeedCore) {
  const place = await placements(ctx, identity, core.paraItemIds);
  const { ids } = core;
  const nodes = ids.map((id, i) => {
    const { para_category, para_item_id } = place(core.paraItemIds[i]!);
    return {
      id,
      title: core.titles[i]!,
      para_category,
      para_item_id,
      connection_count: core.connectionCounts[i]!,
      depth: core.depths[i]!,
    };
  });
  const edges = core.edgeType.map((type, k) => ({
    source: ids[core.edgeSource[k]!]!,
    target: ids[core.edgeTarget[k]!]!,
    link_type: type,
    weight: core.edgeWeight[k]!,
  }));
  return {
    seed_id: core.seedId,
    nodes,
    edges,
    frontier_ids: core.frontierIds,
    meta: { node_count: nodes.length, edge_count: edges.length, depth: q.depth },
  };
}
