import type { searchApi } from '@kg/contracts';
import type { Handlers } from '@kg/trpc';
import type { Db } from '@kg/db';
import type { Ranker } from '../ranking/search';
import type { ContextRanker } from '../ranking/context';
import { indexingProgress } from '../store/documents';

type H = Handlers<typeof searchApi>;

export const searchNodes =
  (ranker: Ranker): H['nodes']['search'] =>
  async ({ input, ctx }) => {
    const filters = {
      status: input.status,
      para_item_id: input.para_item_id,
      orphan: input.orphan,
      source_capture_id: input.source_capture_id,
    };
    const { ranked, fallback } = await ranker.rank(ctx.identity.tenantId, input.query, input.mode, filters);
    const start = (input.page - 1) * input.per_page;
    return {
      hits: ranked.slice(start, start + input.per_page),
      total: ranked.length,
      ...(fallback ? { fallback } : {}),
    };
  };

/**
 * Link suggestions: the tenant's nodes most similar to the text (semantic, with the semantic
 * floor), leaving out `exclude_ids` (the node being edited and its existing links).
 */
export const suggestLinks =
  (ranker: Ranker): H['links']['suggest'] =>
  async ({ input, ctx }) => {
    const exclude = new Set(input.exclude_ids);
    const hits = await ranker.similar(
      ctx.identity.tenantId,
      await ranker.embedQuery(ctx.identity.tenantId, input.text),
      {},
      input.limit + exclude.size,
    );
    return { hits: hits.filter((h) => !exclude.has(h.id)).slice(0, input.limit), model: ranker.model };
  };

/** A node's vector (indexing/indexer.ts embedNode), or null when graph does not know the node. */
export type NodeVector = (tenantId: string, nodeId: string) => Promise<number[] | null>;

/**
 * Nodes most similar to a node, by the vector the indexer makes of it (same text, same kind:
 * the embedding cache answers whichever of this and the indexer comes second), leaving out
 * the node and `exclude_ids`. A node graph does not know (deleted meanwhile) has no hits.
 */
export const similarNodes =
  (ranker: Ranker, nodeVector: NodeVector): H['links']['similar'] =>
  async ({ input, ctx }) => {
    const vector = await nodeVector(ctx.identity.tenantId, input.node_id);
    if (!vector) return { hits: [], model: ranker.model };
    const exclude = new Set([input.node_id, ...input.exclude_ids]);
    const hits = await ranker.similar(ctx.identity.tenantId, vector, {}, input.limit + exclude.size);
    return { hits: hits.filter((h) => !exclude.has(h.id)).slice(0, input.limit), model: ranker.model };
  };

export const indexingStatus =
  (db: Db, model: string): H['indexing']['status'] =>
  async ({ ctx }) => ({ model, ...(await indexingProgress(db, model, ctx.identity.tenantId)) });

export const rankContext =
  (context: ContextRanker): H['context']['rank'] =>
  async ({ input, ctx }) => ({ nodes: await context.rank(ctx.identity.tenantId, input.focus_node_ids, input.mode) });
