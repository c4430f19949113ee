import { searchApi } from '@kg/contracts';
import { defineRouter } from '@kg/trpc';
import type { Db } from '@kg/db';
import { info } from './procedures/info';
import { countDocs, getDocument } from './procedures/documents';
import {
  indexingStatus,
  rankContext,
  searchNodes,
  similarNodes,
  suggestLinks,
  type NodeVector,
} from './procedures/search';
import type { ContextRanker } from './ranking/context';
import type { Ranker } from './ranking/search';

/** searchRouter: the node projection fed by graph events, semantic and hybrid ranking, link suggestions, context. */
export const createSearchRouter = (
  db: Db,
  ranker: Ranker,
  context: ContextRanker,
  model: string,
  nodeVector: NodeVector,
) =>
  defineRouter(searchApi, {
    info,
    documents: { get: getDocument(db), count: countDocs(db) },
    nodes: { search: searchNodes(ranker) },
    links: { suggest: suggestLinks(ranker), similar: similarNodes(ranker, nodeVector) },
    context: { rank: rankContext(context) },
    indexing: { status: indexingStatus(db, model) },
  });
