import { searchApi } from '@kg/contracts';
import { defineRouter } from '@kg/trpc';
import type { Db } from '@kg/db';
import { info } from './procedures/info';
import { countDocs, getDocument } from './procedures/documents';
import { indexingStatus, searchNodes, suggestLinks } from './procedures/search';
import type { Ranker } from './ranking/search';

/** searchRouter: the node projection fed by graph events, semantic and hybrid ranking, link suggestions. */
export const createSearchRouter = (db: Db, ranker: Ranker, model: string) =>
  defineRouter(searchApi, {
    info,
    documents: { get: getDocument(db), count: countDocs(db) },
    nodes: { search: searchNodes(ranker) },
    links: { suggest: suggestLinks(ranker) },
    indexing: { status: indexingStatus(db, model) },
  });
