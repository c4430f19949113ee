import { z } from 'zod';
import { CaptureId, NodeId, ParaItemId } from './ids';
import { PageQuery, Timestamp, pageOf, queryBool, text } from './common';

export const NodeStatus = z.enum(['raw', 'validated', 'dismissed']).meta({ id: 'NodeStatus' });
export type NodeStatus = z.infer<typeof NodeStatus>;

export const SearchMode = z.enum(['keyword', 'semantic', 'hybrid']).meta({ id: 'SearchMode' });

const Tag = text({ max: 64, trim: true });
const Tags = z
  .array(Tag)
  .max(64)
  .transform((tags) => [...new Set(tags)]);
const Title = text({ max: 500, trim: true });
const Summary = text({ max: 10_000 });
const Content = text({ max: 1_000_000 }).meta({ description: 'Markdown body, up to 1,000,000 characters' });

/** One node↔PARA-item association: who made it, when, with what score, and whether it counts. */
export const ParaAssignment = z
  .object({
    para_item_id: ParaItemId,
    state: z.enum(['active', 'archived']).meta({
      description: '`archived` while its item is archived: kept on the node, but it no longer counts',
    }),
    assigned_by: z.string().meta({
      description:
        '`user`; `system:reclassify` for an automatic assignment; `system:import` for a bookmark imported with `para` (its innermost folder)',
    }),
    score: z
      .number()
      .nullable()
      .meta({ description: 'The reclassification score; null for a person’s assignment and an import’s' }),
    assigned_at: Timestamp,
  })
  .meta({ id: 'ParaAssignment' });
export type ParaAssignment = z.infer<typeof ParaAssignment>;

const ParaItemIds = z.array(ParaItemId).max(32);

export const Node = z
  .object({
    id: NodeId,
    title: z.string(),
    summary: z.string(),
    body_markdown: z.string(),
    tags: z.array(z.string()),
    para_item_ids: z.array(ParaItemId),
    para_assignments: z.array(ParaAssignment),
    status: NodeStatus,
    source_capture_id: CaptureId.nullable().meta({
      description:
        'Extension: the capture this node was made from (null for a node made by hand). Kept when the capture is deleted: it then names a deleted capture (GET /captures/:id answers 404)',
    }),
    created_at: Timestamp,
    updated_at: Timestamp,
  })
  .meta({ id: 'Node' });
export type Node = z.infer<typeof Node>;

export const CreateNodeInput = z
  .object({
    title: Title,
    content: Content.default(''),
    summary: Summary.default(''),
    tags: Tags.default([]),
    para_item_ids: ParaItemIds.default([]),
  })
  .strict()
  .meta({ id: 'CreateNodeInput' });
export type CreateNodeInput = z.infer<typeof CreateNodeInput>;

export const UpdateNodeInput = z
  .object({
    title: Title.optional(),
    content: Content.optional(),
    summary: Summary.optional(),
    tags: Tags.optional(),
    status: NodeStatus.optional(),
    para_item_ids: ParaItemIds.optional().meta({
      description: 'Extension: a full replacement of the node’s PARA assignments',
    }),
  })
  .strict()
  .meta({ id: 'UpdateNodeInput' });
export type UpdateNodeInput = z.infer<typeof UpdateNodeInput>;

export const ListNodesQuery = PageQuery.extend({
  query: text({ max: 500 }).optional().meta({ description: 'Search text, at most 500 characters' }),
  mode: SearchMode.optional().meta({ description: 'Search mode, default hybrid (docs/API.md "Search modes")' }),
  para_item_id: text({ max: 64 }).optional(),
  status: NodeStatus.optional(),
  orphan: queryBool.optional().meta({ description: 'true: only nodes without PARA items; false: only assigned nodes' }),
  source_capture_id: text({ min: 1, max: 64 })
    .optional()
    .meta({ description: 'Extension: only the node made from this capture (every mode)' }),
}).strict();
export type ListNodesQuery = z.infer<typeof ListNodesQuery>;

/** The parsed list query as the graph service receives it (no string coercion). */
export const ListNodesInput = z.object({
  query: text({ max: 500 }).optional(),
  mode: SearchMode.optional(),
  para_item_id: text({ max: 64 }).optional(),
  status: NodeStatus.optional(),
  orphan: z.boolean().optional(),
  source_capture_id: text({ min: 1, max: 64 }).optional(),
  page: z.number().int().min(1).max(1_000_000).default(1),
  per_page: z.number().int().min(1).max(100).default(20),
});
export type ListNodesInput = z.infer<typeof ListNodesInput>;

/**
 * Set when a hybrid search answered from keyword ranking alone because the vector index could
 * not answer (docs/API.md "When the vector index is unavailable"); absent otherwise.
 */
export const SearchFallback = z.literal('keyword').meta({
  description:
    'Present when a hybrid search was answered by keyword ranking alone because semantic search was unavailable (also sent as the KG-Search-Fallback header)',
});

export const NodePage = pageOf(Node).extend({ fallback: SearchFallback.optional() }).meta({ id: 'NodePage' });

export const LinkType = z
  .string()
  .regex(/^[a-z][a-z0-9_]{0,39}$/, 'must be a lowercase word matching ^[a-z][a-z0-9_]{0,39}$')
  .meta({ example: 'related' });

export const LinkInput = z
  .object({
    target_id: text({ min: 1, max: 64 }),
    type: LinkType,
    weight: z.number().gt(0).lte(1).default(1).meta({ description: 'In (0, 1], default 1.0' }),
  })
  .strict();

export const ReplaceLinksInput = z
  .object({ links: z.array(LinkInput).max(500) })
  .strict()
  .meta({ id: 'ReplaceLinksInput' });
export type ReplaceLinksInput = z.infer<typeof ReplaceLinksInput>;

export const Link = z.object({ target_id: NodeId, type: z.string(), weight: z.number() }).meta({ id: 'Link' });
export const LinkList = z.object({ links: z.array(Link) }).meta({ id: 'LinkList' });

export const RelatedQuery = z
  .object({ limit: z.coerce.number().int().min(1).max(500).meta({ description: 'Required, 1 to 500' }) })
  .strict();

export const RelatedNode = z
  .object({ id: NodeId, title: z.string(), summary: z.string(), relationship_type: z.string() })
  .meta({ id: 'RelatedNode' });
export const RelatedList = z.object({ nodes: z.array(RelatedNode) }).meta({ id: 'RelatedList' });
