import { ById, GraphHealth, NeighborsQuery, NeighborsView, SeedQuery, SeedView } from '@kg/contracts';
import { defineRoute, forward, ok, type Route } from './route';

const base = { tag: 'Graph', auth: 'required', service: 'graph', rateLimit: 'graph', errors: [404, 429] } as const;

/**
 * Graph views for the dashboard and graph health; rate-limited per tenant and per credential.
 * The two views are forwarded as the JSON text the graph service wrote (and checked against
 * the same schemas): a 500-node seed view is ~340 KB, which the gateway would otherwise parse,
 * check and write again. A view asked again is served from the gateway's view cache until a
 * write changes the tenant's views (ViewCache).
 */
export const graphRoutes: Route[] = [
  defineRoute({
    ...base,
    method: 'get',
    path: '/graph/seed',
    keepsViews: true,
    operationId: 'getGraphSeed',
    summary: 'BFS neighbourhood of a seed (default: the hub), bounded by max_nodes',
    query: SeedQuery,
    success: { status: 200, description: 'Nodes with their hop depth, edges among them, frontier', schema: SeedView },
    async handle(req, peers) {
      return forward(
        await req.cachedView(JSON.stringify(req.query), () => peers.graph.asJson(req.identity).views.seed(req.query)),
      );
    },
  }),
  defineRoute({
    ...base,
    method: 'get',
    path: '/graph/neighbors/:id',
    keepsViews: true,
    operationId: 'getGraphNeighbors',
    summary: 'One page of a node’s neighbours per direction (keyset pages behind an opaque cursor)',
    params: ById,
    query: NeighborsQuery,
    success: { status: 200, description: 'Neighbours, edges and the next cursor', schema: NeighborsView },
    async handle(req, peers) {
      const input = { id: req.params.id, ...req.query };
      return forward(
        await req.cachedView(JSON.stringify(input), () => peers.graph.asJson(req.identity).views.neighbors(input)),
      );
    },
  }),
  defineRoute({
    ...base,
    method: 'get',
    path: '/graph-health',
    operationId: 'getGraphHealth',
    summary: 'Counts of nodes, validated nodes, links, stale nodes and captures',
    success: { status: 200, description: 'Graph health', schema: GraphHealth },
    errors: [429],
    async handle(req, peers) {
      const [graph, captures] = await Promise.all([
        peers.graph.as(req.identity).views.health({}),
        peers.captures.as(req.identity).stats({}),
      ]);
      return ok({
        ...graph,
        total_captures: captures.total,
        pending_captures: captures.pending,
        processing_captures: captures.processing,
        failed_captures: captures.failed,
      });
    },
  }),
];
