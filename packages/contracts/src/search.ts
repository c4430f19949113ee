import { z } from 'zod';
import { text } from './common';
import { NodeStatus, SearchFallback } from './nodes';

/** A node id with its relevance score (higher is better). */
export const ScoredId = z.object({ id: z.string(), score: z.number() });

/** Semantic and hybrid search as the gateway asks the search service (GET /nodes). */
export const SearchNodesInput = z.object({
  query: text({ max: 500 }),
  mode: z.enum(['semantic', 'hybrid']),
  status: NodeStatus.optional(),
  para_item_id: text({ max: 64 }).optional(),
  orphan: z.boolean().optional(),
  source_capture_id: text({ min: 1, max: 64 }).optional(),
  page: z.number().int().min(1).max(1_000_000),
  per_page: z.number().int().min(1).max(100),
});
/** One page of ranked ids; `total` counts the ranked candidates, at most SEARCH_CANDIDATE_CAP. */
export const SearchNodesOutput = z.object({
  hits: z.array(ScoredId),
  total: z.number().int(),
  fallback: SearchFallback.optional(),
});

/** Semantic and hybrid answers rank at most this many nodes (`total` is capped to it). */
export const SEARCH_CANDIDATE_CAP = 200;

export const SuggestLinksInput = z.object({
  text: text({ min: 1, max: 10_000 }),
  /** Ids left out: the node itself and its existing links. */
  exclude_ids: z
    .array(text({ max: 64 }))
    .max(600)
    .default([]),
  limit: z.number().int().min(1).max(50).default(10),
});
/**
 * Nodes similar to a node (the ingest worker's proposals): scored by the node's own vector, made
 * from the text the indexer embeds, so the search service embeds that text once for both.
 */
export const SimilarNodesInput = z.object({
  node_id: text({ max: 64 }),
  /** Ids left out besides the node itself. */
  exclude_ids: z
    .array(text({ max: 64 }))
    .max(600)
    .default([]),
  limit: z.number().int().min(1).max(50).default(10),
});
/** `model`: the embedding model that scored the hits (the ingest worker records it on its proposals). */
export const SuggestLinksOutput = z.object({ hits: z.array(ScoredId), model: z.string() });

/** GET /links/suggestions: nodes that could be linked, most similar first (at most 10). */
export const LinkSuggestions = z
  .object({
    suggestions: z.array(z.object({ node_id: z.string(), title: z.string(), score: z.number() })),
  })
  .meta({ id: 'LinkSuggestions' });

/** One ranked context node with its score in [0, 1] and why it was chosen. */
export const ContextNode = z
  .object({
    id: z.string(),
    title: z.string(),
    summary: z.string(),
    status: z.string(),
    updated_at: z.string(),
    score: z.number(),
    reasons: z.array(z.string()),
  })
  .meta({ id: 'ContextNode' });
/** POST /context: at most CONTEXT_LIMIT nodes, best first (docs/API.md "Context"). */
export const ContextResponse = z.object({ nodes: z.array(ContextNode) }).meta({ id: 'ContextResponse' });
export const CONTEXT_LIMIT = 20;

export const ContextInput = z.object({
  focus_node_ids: z
    .array(text({ max: 64 }))
    .max(50)
    .default([]),
  mode: z.enum(['keyword', 'semantic', 'hybrid']).default('hybrid'),
});
