import type { z } from 'zod';
import type { KeywordSearchInput } from '@kg/contracts';
import type { DbOrTx } from '@kg/db';
import {
  commonLexemes,
  corpusStats,
  keywordSearch,
  type CommonLexemes,
  type CorpusStats,
  type KeywordFilter,
} from '../store/keyword';
import { findNodes } from '../store/nodes';
import { readStats } from '../store/stats';
import type { GraphContext } from './context';

/**
 * BM25's corpus statistics per tenant. N is read exact every time (the tenant_stats row); the
 * average document length, which needs a scan of the tenant's index, is reused for up to
 * `CORPUS_TTL_MS` while N stays within 10 % of the N it was computed with (at 100k nodes the
 * scan costs tens of milliseconds; a stale average moves scores little).
 */
const CORPUS_TTL_MS = 30_000;
const CORPUS_TENANTS = 10_000;
const corpusCache = new Map<string, { stats: CorpusStats; at: number }>();
/** The planner's common lexemes (for df estimates of very common words), reread every CORPUS_TTL_MS. */
let common: { lexemes: CommonLexemes; at: number } | null = null;

async function corpusOf(db: DbOrTx, tenantId: string): Promise<CorpusStats> {
  if (!common || Date.now() - common.at >= CORPUS_TTL_MS) common = { lexemes: await commonLexemes(db), at: Date.now() };
  const nodes = (await readStats(db, tenantId)).totalNodes;
  const hit = corpusCache.get(tenantId);
  if (hit && Date.now() - hit.at < CORPUS_TTL_MS && Math.abs(nodes - hit.stats.nodes) <= 0.1 * hit.stats.nodes)
    return { nodes, avgLength: hit.stats.avgLength, common: common.lexemes };
  const stats = await corpusStats(db, tenantId, common.lexemes);
  corpusCache.delete(tenantId);
  if (corpusCache.size >= CORPUS_TENANTS) corpusCache.delete(corpusCache.keys().next().value!);
  corpusCache.set(tenantId, { stats, at: Date.now() });
  return stats;
}

/** A page of GET /nodes?query=…: the ranked page's nodes in rank order, and the candidates' count. */
export async function keywordPage(
  db: DbOrTx,
  tenantId: string,
  query: string,
  filter: KeywordFilter,
  limit: number,
  offset: number,
) {
  const corpus = await corpusOf(db, tenantId);
  const { hits, total } = await keywordSearch(db, tenantId, query, filter, limit, offset, corpus);
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
  const corpus = await corpusOf(ctx.db, tenantId);
  const { hits } = await keywordSearch(ctx.db, tenantId, input.query, filter, input.limit, 0, corpus);
  return { hits };
}
