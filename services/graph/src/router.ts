import { graphApi } from '@kg/contracts';
import { defineRouter } from '@kg/trpc';
import type { ViewContext } from './domain/views';
import * as assignments from './procedures/assignments';
import * as captureNodes from './procedures/capture-nodes';
import * as links from './procedures/links';
import * as nodes from './procedures/nodes';
import * as proposals from './procedures/proposals';
import * as reclassify from './procedures/reclassify';
import * as search from './procedures/search';
import * as views from './procedures/views';

/** graphRouter: nodes, links, related nodes, graph views and health. */
export const createGraphRouter = (ctx: ViewContext) =>
  defineRouter(graphApi, {
    nodes: {
      create: nodes.create(ctx),
      get: nodes.get(ctx),
      update: nodes.update(ctx),
      delete: nodes.remove(ctx),
      list: nodes.list(ctx),
    },
    links: { replace: links.replace(ctx), related: links.relatedTo(ctx) },
    views: { seed: views.seed(ctx), neighbors: views.neighbors(ctx), health: views.health(ctx) },
    assignments: {
      archiveItem: assignments.archiveItem(ctx),
      restoreItem: assignments.restoreItem(ctx),
      autoAssign: reclassify.autoAssign(ctx),
    },
    captures: { upsertNode: captureNodes.upsertNode(ctx) },
    proposals: {
      record: proposals.record(ctx),
      list: proposals.list(ctx),
      accept: proposals.accept(ctx),
      dismiss: proposals.dismiss(ctx),
    },
    search: { keyword: search.keyword(ctx), nodes: search.nodes(ctx), links: search.links(ctx) },
    reclassify: { orphans: reclassify.orphans(ctx), count: reclassify.count(ctx) },
  });
