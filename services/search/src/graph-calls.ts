import type { graphApi, Identity } from '@kg/contracts';
import type { ServiceHandle } from '@kg/trpc';
import type { NodeSource } from './indexing/indexer';
import type { KeywordSource } from './ranking/search';
import type { LinkSource } from './ranking/context';

/** The search service acts for a tenant when it reads graph outside a request (indexing). */
export const systemIdentity = (tenantId: string): Identity => ({
  tenantId,
  subject: 'system:search',
  credential: { kind: 'jwt', id: 'system:search' },
});

/** Nodes by id through `graph.search.nodes` (at most 100 per call). */
export const graphNodeSource =
  (graph: ServiceHandle<typeof graphApi>): NodeSource =>
  async (tenantId, ids) => {
    const nodes = [];
    for (let i = 0; i < ids.length; i += 100)
      nodes.push(...(await graph.as(systemIdentity(tenantId)).search.nodes({ ids: ids.slice(i, i + 100) })).nodes);
    return nodes;
  };

/** Keyword candidates through `graph.search.keyword` (BM25, any word). */
export const graphKeywordSource =
  (graph: ServiceHandle<typeof graphApi>): KeywordSource =>
  async (tenantId, query, filters, limit) => {
    const { hits } = await graph.as(systemIdentity(tenantId)).search.keyword({
      query,
      limit,
      filters: {
        ...(filters.status !== undefined ? { status: filters.status as never } : {}),
        ...(filters.para_item_id !== undefined ? { para_item_id: filters.para_item_id } : {}),
        ...(filters.orphan !== undefined ? { orphan: filters.orphan } : {}),
        ...(filters.source_capture_id !== undefined ? { source_capture_id: filters.source_capture_id } : {}),
      },
    });
    return hits;
  };

/** Links of nodes through `graph.search.links` (at most 100 ids per call). */
export const graphLinkSource =
  (graph: ServiceHandle<typeof graphApi>): LinkSource =>
  async (tenantId, ids) => {
    const links = [];
    for (let i = 0; i < ids.length; i += 100)
      links.push(...(await graph.as(systemIdentity(tenantId)).search.links({ ids: ids.slice(i, i + 100) })).links);
    return links;
  };
