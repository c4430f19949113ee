import type { z } from 'zod';
import type { KeywordSearchInput } from '@kg/contracts';
import type { DbOrTx } from '@kg/db';
import { keywordSearch, type KeywordFilter } from '../store/keyword';
import { findNodes } from '../store/nodes';
import type { GraphContext } from './context';

/** A page of GET /nodes?query=…: the ranked page's nodes in rank order, and the candidates' count. */
export async function keywordPage(
  db: DbOrTx,
  tenantId: string,
  query: string,
  filter: KeywordFilter,
  limit: number,
  offset: number,
) {
  const { hits, total } = await keywordSearch(db, tenantId, query, filter, limit, offset);
  const byId = new Map(
    (
      await findNodes(
        db,
        tenantId,
        hits.map((h) => h.id),
      )
    ).map((n) => [n.id, n]),
  );
  return { rows: hits.flatMap((h) => byId.get(h.id) ?? []), total };
}

/** graph.search.keyword: the best `limit` candidates with their BM25 scores, for fusion by callers. */
export async function keywordHits(ctx: GraphContext, tenantId: string, input: z.output<typeof KeywordSearchInput>) {
  const f = input.filters;
  const filter: KeywordFilter = {
    ...(f.status ? { status: f.status } : {}),
    ...(f.para_item_id !== undefined ? { paraItemId: f.para_item_id } : {}),
    ...(f.orphan !== undefined ? { orphan: f.orphan } : {}),
    ...(f.source_capture_id !== undefined ? { sourceCaptureId: f.source_capture_id } : {}),
  };
  const { hits } = await keywordSearch(ctx.db, tenantId, input.query, filter, input.limit, 0);
  return { hits };
}
