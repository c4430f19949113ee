import {
  ById,
  CreateNodeInput,
  LinkList,
  ListNodesQuery,
  Node,
  NodePage,
  RelatedList,
  RelatedQuery,
  ReplaceLinksInput,
  UpdateNodeInput,
} from '@kg/contracts';
import { defineRoute, noContent, ok, type Route } from './route';
import { asksSearch, listNodes } from './search';

const base = { tag: 'Nodes', auth: 'required', service: 'graph' } as const;

export const nodeRoutes: Route[] = [
  defineRoute({
    ...base,
    method: 'get',
    path: '/nodes',
    operationId: 'listNodes',
    summary:
      'List and search nodes (mode hybrid by default; keyword, semantic); semantic and hybrid queries are rate-limited (429)',
    query: ListNodesQuery,
    success: { status: 200, description: 'A page of nodes', schema: NodePage },
    errors: [429],
    async handle(req, peers) {
      if (asksSearch(req.query)) await req.limitGroup('search');
      return listNodes(req.query, peers, req.identity);
    },
  }),
  defineRoute({
    ...base,
    method: 'post',
    path: '/nodes',
    operationId: 'createNode',
    summary: 'Create a node (`content` becomes `body_markdown`; status starts `raw`)',
    body: CreateNodeInput,
    success: { status: 201, description: 'Created', schema: Node },
    async handle(req, peers) {
      return ok(await peers.graph.as(req.identity).nodes.create(req.body), 201);
    },
  }),
  defineRoute({
    ...base,
    method: 'get',
    path: '/nodes/:id',
    operationId: 'getNode',
    summary: 'Get a node',
    params: ById,
    success: { status: 200, description: 'The node', schema: Node },
    errors: [404],
    async handle(req, peers) {
      return ok(await peers.graph.as(req.identity).nodes.get({ id: req.params.id }));
    },
  }),
  defineRoute({
    ...base,
    method: 'patch',
    path: '/nodes/:id',
    operationId: 'updateNode',
    summary: 'Update any subset of title, content, summary, tags, status',
    params: ById,
    body: UpdateNodeInput,
    success: { status: 200, description: 'The updated node', schema: Node },
    errors: [404],
    async handle(req, peers) {
      return ok(await peers.graph.as(req.identity).nodes.update({ id: req.params.id, patch: req.body }));
    },
  }),
  defineRoute({
    ...base,
    method: 'delete',
    path: '/nodes/:id',
    operationId: 'deleteNode',
    summary: 'Delete a node and its links in both directions',
    params: ById,
    success: { status: 204, description: 'Deleted' },
    errors: [404],
    async handle(req, peers) {
      await peers.graph.as(req.identity).nodes.delete({ id: req.params.id });
      return noContent();
    },
  }),
  defineRoute({
    ...base,
    method: 'patch',
    path: '/nodes/:id/links',
    operationId: 'replaceNodeLinks',
    summary: "Replace a node's links (full replacement; each link also creates its reverse)",
    params: ById,
    body: ReplaceLinksInput,
    success: { status: 200, description: 'The node’s links after the replacement', schema: LinkList },
    errors: [404],
    async handle(req, peers) {
      return ok(await peers.graph.as(req.identity).links.replace({ id: req.params.id, links: req.body.links }));
    },
  }),
  defineRoute({
    ...base,
    method: 'get',
    path: '/nodes/:id/related',
    operationId: 'listRelatedNodes',
    summary: 'One-hop neighbours, strongest link first',
    params: ById,
    query: RelatedQuery,
    success: { status: 200, description: 'Related nodes', schema: RelatedList },
    errors: [404],
    async handle(req, peers) {
      return ok(await peers.graph.as(req.identity).links.related({ id: req.params.id, limit: req.query.limit }));
    },
  }),
];
