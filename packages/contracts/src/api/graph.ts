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
    create: mutation('tenant', CreateNodeInput, Node, ['gateway']),
    get: query('tenant', ById, Node, ['gateway']),
    update: mutation('tenant', ById.extend({ patch: UpdateNodeInput }), Node, ['gateway']),
    delete: mutation('tenant', ById, z.object({ deleted: z.literal(true) }), ['gateway']),
    list: query('tenant', ListNodesInput, NodePage, ['gateway']),
  },
  links: {
    replace: mutation('tenant', ById.extend({ links: ReplaceLinksInput.shape.links }), LinkList, ['gateway']),
    related: query('tenant', ById.extend(RelatedQuery.shape), RelatedList, ['gateway']),
  },
  views: {
    seed: query('tenant', SeedQuery, SeedView, ['gateway']),
    neighbors: query('tenant', ById.extend(NeighborsQuery.shape), NeighborsView, ['gateway']),
    /** Node and link counts; captures counts come from the captures service. */
    health: query(
      'tenant',
      z.object({}),
      GraphHealth.pick({ total_nodes: true, validated_nodes: true, total_links: true, stale_nodes: true }),
      ['gateway'],
    ),
  },
  /**
   * Node↔PARA associations. The graph service owns them (services/graph/src/domain/assignments.ts
   * says why); the PARA service commands the archive of an item's associations and their restore.
   */
  assignments: {
    archiveItem: mutation('tenant', ParaItemRef, z.object({ archived: z.number().int() }), ['para']),
    restoreItem: mutation('tenant', ParaItemRef, z.object({ restored: z.number().int() }), ['para']),
  },
} as const;
