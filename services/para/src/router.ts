import { paraApi } from '@kg/contracts';
import { defineRouter } from '@kg/trpc';
import type { ParaContext } from './domain/context';
import * as items from './procedures/items';
import * as jobs from './procedures/jobs';
import { resolveItems } from './procedures/resolve-items';

/** paraRouter: PARA items, their lifecycle, and the lookups other services make. */
export const createParaRouter = (ctx: ParaContext) =>
  defineRouter(paraApi, {
    items: {
      resolve: resolveItems(ctx),
      tree: items.tree(ctx),
      list: items.list(ctx),
      get: items.get(ctx),
      create: items.create(ctx),
      ensure: items.ensure(ctx),
      update: items.update(ctx),
      complete: items.complete(ctx),
      undoComplete: items.undoComplete(ctx),
      archive: items.archive(ctx),
      unarchive: items.unarchive(ctx),
      match: items.match(ctx),
    },
    rescan: jobs.rescan(ctx),
    jobs: { get: jobs.get(ctx) },
  });
