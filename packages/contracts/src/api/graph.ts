import { z } from 'zod';
import { mutation, query } from '../procedure';
import {
  CreateNodeInput,
  LinkList,
  ListNodesInput,
  Node,
  NodePage,
  RelatedList,
  RelatedQuery,
  ReplaceLinksInput,
  UpdateNodeInput,
} from '../nodes';
import { ById } from '../common';
import { GraphHealth, NeighborsQuery, NeighborsView, SeedQuery, SeedView } from '../graph-views';

/** The graph service's tRPC contract. */
export const graphApi = {
  nodes: {
    create: mutation('tenant', CreateNodeInput, Node),
    get: query('tenant', ById, Node),
    update: mutation('tenant', ById.extend({ patch: UpdateNodeInput }), Node),
    delete: mutation('tenant', ById, z.object({ deleted: z.literal(true) })),
    list: query('tenant', ListNodesInput, NodePage),
  },
  links: {
    replace: mutation('tenant', ById.extend({ links: ReplaceLinksInput.shape.links }), LinkList),
    related: query('tenant', ById.extend(RelatedQuery.shape), RelatedList),
  },
  views: {
    seed: query('tenant', SeedQuery, SeedView),
    neighbors: query('tenant', ById.extend(NeighborsQuery.shape), NeighborsView),
    /** Node and link counts; captures counts come from the captures service. */
    health: query(
      'tenant',
      z.object({}),
      GraphHealth.pick({ total_nodes: true, validated_nodes: true, total_links: true, stale_nodes: true }),
    ),
  },
} as const;
