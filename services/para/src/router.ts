import { paraApi } from '@kg/contracts';
import { defineRouter } from '@kg/trpc';
import type { Db } from '@kg/db';
import { resolveItems } from './procedures/resolve-items';

/** paraRouter: PARA items. Public PARA endpoints arrive with the PARA issue (the gateway answers 501 until then). */
export const createParaRouter = (db: Db) =>
  defineRouter(paraApi, {
    items: { resolve: resolveItems(db) },
  });
