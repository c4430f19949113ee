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

const ById = z.object({ id: z.string().max(64) });

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
} as const;
