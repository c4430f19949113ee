import { searchApi } from '@kg/contracts';
import { defineRouter } from '@kg/trpc';
import type { Db } from '@kg/db';
import { info } from './procedures/info';
import { countDocs, getDocument } from './procedures/documents';

/**
 * searchRouter: the node projection fed by graph events. Semantic and hybrid search,
 * context ranking and link suggestions arrive with the search issue (501 until then).
 */
export const createSearchRouter = (db: Db) =>
  defineRouter(searchApi, { info, documents: { get: getDocument(db), count: countDocs(db) } });
