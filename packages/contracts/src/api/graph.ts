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
import { ById, text } from '../common';
import { GraphHealth, NeighborsQuery, NeighborsView, SeedQuery, SeedView } from '../graph-views';

const ParaItemRef = z.object({ para_item_id: text({ max: 64 }) });

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
  /**
   * Node↔PARA associations. The graph service owns them (services/graph/src/domain/assignments.ts
   * says why); the PARA service commands the archive of an item's associations and their restore.
   */
  assignments: {
    archiveItem: mutation('tenant', ParaItemRef, z.object({ archived: z.number().int() })),
    restoreItem: mutation('tenant', ParaItemRef, z.object({ restored: z.number().int() })),
  },
} as const;
