import { graphApi } from '@kg/contracts';
import { defineRouter } from '@kg/trpc';
import type { GraphContext } from './domain/context';
import * as links from './procedures/links';
import * as nodes from './procedures/nodes';

/** graphRouter: nodes, links, related nodes. */
export const createGraphRouter = (ctx: GraphContext) =>
  defineRouter(graphApi, {
    nodes: {
      create: nodes.create(ctx),
      get: nodes.get(ctx),
      update: nodes.update(ctx),
      delete: nodes.remove(ctx),
      list: nodes.list(ctx),
    },
    links: { replace: links.replace(ctx), related: links.relatedTo(ctx) },
  });
