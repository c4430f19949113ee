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
    const tenantId = ctx.identity.tenantId;
    const ranked =
      input.mode === 'semantic'
        ? await ranker.semantic(tenantId, input.query, filters)
        : await ranker.hybrid(tenantId, input.query, filters);
    const start = (input.page - 1) * input.per_page;
    return { hits: ranked.slice(start, start + input.per_page), total: ranked.length };
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
      await ranker.embedQuery(input.text),
      {},
      input.limit + exclude.size,
    );
    return { hits: hits.filter((h) => !exclude.has(h.id)).slice(0, input.limit), model: ranker.model };
  };

export const indexingStatus =
  (db: Db, model: string): H['indexing']['status'] =>
  async ({ ctx }) => ({ model, ...(await indexingProgress(db, model, ctx.identity.tenantId)) });

export const rankContext =
  (context: ContextRanker): H['context']['rank'] =>
  async ({ input, ctx }) => ({ data: await context.rank(ctx.identity.tenantId, input.focus_node_ids, input.mode) });
