import {
  ContextRequest,
  ContextResponse,
  LinkSuggestions,
  SuggestionsQuery,
  type Identity,
  type ListNodesQuery,
  type Node,
} from '@kg/contracts';
import type { GatewayPeers } from '../peers';
import { defineRoute, ok, type Route, type RouteResult } from './route';

/** The nodes of `ids` in that order (ids graph no longer knows, deleted since indexing, are left out). */
async function nodesInOrder(peers: GatewayPeers, identity: Identity | null, ids: string[]): Promise<Node[]> {
  if (ids.length === 0) return [];
  return (await peers.graph.as(identity).search.nodes({ ids })).nodes;
}

/** True when GET /nodes asks the search service (semantic or hybrid with a query): limited as a search. */
export const asksSearch = (q: ListNodesQuery) =>
  q.query !== undefined && q.query.trim() !== '' && (q.mode ?? 'hybrid') !== 'keyword';

/** Response header of a hybrid search answered by keyword alone (docs/API.md "When the vector index is unavailable"). */
export const SEARCH_FALLBACK_HEADER = 'KG-Search-Fallback';

/**
 * GET /nodes: without a query (or a blank one) graph lists; with `mode=keyword` graph ranks by
 * BM25; otherwise (hybrid, the default, or semantic) the search service ranks and fuses
 * (docs/API.md "Search modes") and graph supplies the page's nodes. A hybrid search the
 * search service answered by keyword alone (the vector index unavailable) says so in the
 * body (`fallback`) and in the KG-Search-Fallback header.
 */
export async function listNodes(
  q: ListNodesQuery,
  peers: GatewayPeers,
  identity: Identity | null,
): Promise<RouteResult> {
  const mode = q.mode ?? 'hybrid';
  if (q.query === undefined || q.query.trim() === '' || mode === 'keyword') {
    return ok(await peers.graph.as(identity).nodes.list({ ...q, mode: 'keyword' }));
  }
  const { hits, total, fallback } = await peers.search.as(identity).nodes.search({
    query: q.query,
    mode,
    ...(q.status !== undefined ? { status: q.status } : {}),
    ...(q.para_item_id !== undefined ? { para_item_id: q.para_item_id } : {}),
    ...(q.orphan !== undefined ? { orphan: q.orphan } : {}),
    ...(q.source_capture_id !== undefined ? { source_capture_id: q.source_capture_id } : {}),
    page: q.page,
    per_page: q.per_page,
  });
  const data = await nodesInOrder(
    peers,
    identity,
    hits.map((h) => h.id),
  );
  const page = { data, total, page: q.page, per_page: q.per_page };
  if (!fallback) return ok(page);
  return { status: 200, body: { ...page, fallback }, headers: { [SEARCH_FALLBACK_HEADER]: fallback } };
}

/** Suggestions answered at most. */
export const SUGGESTIONS_LIMIT = 10;

export const searchRoutes: Route[] = [
  defineRoute({
    method: 'get',
    path: '/links/suggestions',
    operationId: 'getLinkSuggestions',
    summary: 'Nodes that could be linked to a text, most similar first',
    tag: 'Search',
    auth: 'required',
    service: 'search',
    rateLimit: 'search',
    query: SuggestionsQuery,
    success: { status: 200, description: 'Link suggestions', schema: LinkSuggestions },
    errors: [404],
    async handle(req, peers) {
      const exclude: string[] = [];
      if (req.query.node_id !== undefined) {
        const node = await peers.graph.as(req.identity).nodes.get({ id: req.query.node_id });
        const { links } = await peers.graph.as(req.identity).search.links({ ids: [node.id] });
        exclude.push(node.id, ...links.map((l) => l.target_id));
      }
      const { hits } = await peers.search
        .as(req.identity)
        .links.suggest({ text: req.query.text, exclude_ids: exclude, limit: SUGGESTIONS_LIMIT });
      const nodes = new Map(
        (
          await nodesInOrder(
            peers,
            req.identity,
            hits.map((h) => h.id),
          )
        ).map((n) => [n.id, n]),
      );
      return ok({
        suggestions: hits.flatMap((h) => {
          const node = nodes.get(h.id);
          return node ? [{ node_id: h.id, title: node.title, score: h.score }] : [];
        }),
      });
    },
  }),
  defineRoute({
    method: 'post',
    path: '/context',
    operationId: 'getContext',
    summary: 'Ranked context nodes for a session: graph proximity, similarity, validated, recency; diversified',
    tag: 'Search',
    auth: 'required',
    service: 'search',
    rateLimit: 'search',
    body: ContextRequest,
    success: { status: 200, description: 'Ranked context nodes with scores and reasons', schema: ContextResponse },
    async handle(req, peers) {
      return ok(
        await peers.search.as(req.identity).context.rank({
          focus_node_ids: req.body.focus_node_ids ?? [],
          mode: req.body.mode ?? 'hybrid',
        }),
      );
    },
  }),
];
