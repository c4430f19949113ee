import { z } from 'zod';
import { NodeId } from './ids';
import { text } from './common';

export const ParaCategory = z.enum(['projects', 'areas', 'resources']).meta({ id: 'ParaCategory' });

export const GraphNode = z
  .object({
    id: NodeId,
    title: z.string(),
    para_category: ParaCategory.nullable(),
    para_item_id: z.string().nullable(),
    connection_count: z.number().int(),
    depth: z.number().int().optional(),
    newly_added: z.literal(true).optional(),
  })
  .meta({ id: 'GraphNode' });

export const Edge = z
  .object({ source: NodeId, target: NodeId, link_type: z.string(), weight: z.number() })
  .meta({ id: 'Edge' });

export const MAX_NODES_DEFAULT = 500;
export const MAX_NODES_LIMIT = 2000;

export const SeedQuery = z
  .object({
    seed: text({ max: 64 })
      .optional()
      .meta({ description: 'Seed node id; default: the hub (highest connection_count, then id)' }),
    depth: z.coerce.number().int().min(1).max(3).default(1).meta({ description: 'BFS depth, 1 to 3' }),
    max_nodes: z.coerce
      .number()
      .int()
      .min(1)
      .max(MAX_NODES_LIMIT)
      .default(MAX_NODES_DEFAULT)
      .meta({
        description: `Most nodes returned, 1 to ${MAX_NODES_LIMIT} (default ${MAX_NODES_DEFAULT}); strongest links kept`,
      }),
  })
  .strict();
export type SeedQuery = z.infer<typeof SeedQuery>;

export const SeedView = z
  .object({
    seed_id: NodeId.nullable(),
    nodes: z.array(GraphNode),
    edges: z.array(Edge),
    frontier_ids: z.array(NodeId),
    meta: z.object({ node_count: z.number().int(), edge_count: z.number().int(), depth: z.number().int() }),
  })
  .meta({ id: 'SeedView' });

export const NeighborsQuery = z
  .object({
    direction: z.enum(['out', 'in', 'both']).default('both'),
    limit: z.coerce.number().int().min(1).max(200).default(50),
    cursor: text({ min: 1, max: 200 }).optional(),
  })
  .strict();
export type NeighborsQuery = z.infer<typeof NeighborsQuery>;

export const NeighborsView = z
  .object({ node_id: NodeId, nodes: z.array(GraphNode), edges: z.array(Edge), next_cursor: z.string().nullable() })
  .meta({ id: 'NeighborsView' });

export const GraphHealth = z
  .object({
    total_nodes: z.number().int(),
    validated_nodes: z.number().int(),
    total_captures: z.number().int(),
    pending_captures: z.number().int(),
    processing_captures: z.number().int().meta({ description: 'Extension: captures being processed now' }),
    failed_captures: z.number().int().meta({ description: 'Extension: captures whose processing failed (retry them)' }),
    total_links: z.number().int(),
    stale_nodes: z.number().int(),
  })
  .meta({ id: 'GraphHealth' });

export const ContextRequest = z
  .object({
    focus_node_ids: z
      .array(text({ max: 64 }))
      .max(50)
      .optional(),
    mode: z.enum(['keyword', 'semantic', 'hybrid']).optional(),
  })
  .strict()
  .meta({ id: 'ContextRequest' });

export const SuggestionsQuery = z
  .object({
    text: text({ min: 1, max: 10_000 }).meta({
      description: 'Text to find linkable nodes for, at most 10,000 characters',
    }),
    node_id: text({ min: 1, max: 64 })
      .optional()
      .meta({ description: 'Extension: the node being edited; it and the nodes it links to are left out' }),
  })
  .strict();
