import type { paraApi } from '@kg/contracts';
import type { Handlers } from '@kg/trpc';
import type { ParaContext } from '../domain/context';
import { ensureItem } from '../domain/ensure';
import { createItem, getItem, listParaItems, paraTree, toItem } from '../domain/items';
import { matchItem, startForNewItem } from '../domain/jobs';
import { archiveItem, completeItem, patchItem, unarchiveItem, undoCompleteItem } from '../domain/lifecycle';

type H = Handlers<typeof paraApi>['items'];

export const tree =
  (ctx: ParaContext): H['tree'] =>
  ({ ctx: call }) =>
    paraTree(ctx, call.identity.tenantId);

export const list =
  (ctx: ParaContext): H['list'] =>
  async ({ input, ctx: call }) => ({ data: await listParaItems(ctx, call.identity.tenantId, input) });

export const get =
  (ctx: ParaContext): H['get'] =>
  ({ input, ctx: call }) =>
    getItem(ctx, call.identity.tenantId, input.id);

/** Creates the item, then starts the reclassification of orphan nodes against it. */
export const create =
  (ctx: ParaContext): H['create'] =>
  async ({ input, ctx: call }) => {
    const item = await createItem(ctx, call.identity.tenantId, input);
    await startForNewItem(ctx, call.identity, item);
    return toItem(item);
  };

/** graph: the item a bookmark import's folder names, found or made once (no reclassification job). */
export const ensure =
  (ctx: ParaContext): H['ensure'] =>
  async ({ input, ctx: call }) => {
    const { row, created } = await ensureItem(ctx, call.identity.tenantId, input);
    return { item: toItem(row), created };
  };

export const update =
  (ctx: ParaContext): H['update'] =>
  ({ input, ctx: call }) =>
    patchItem(ctx, call.identity, input.id, input.patch);

export const complete =
  (ctx: ParaContext): H['complete'] =>
  ({ input, ctx: call }) =>
    completeItem(ctx, call.identity, input.id);

export const undoComplete =
  (ctx: ParaContext): H['undoComplete'] =>
  ({ input, ctx: call }) =>
    undoCompleteItem(ctx, call.identity, input.id);

export const archive =
  (ctx: ParaContext): H['archive'] =>
  ({ input, ctx: call }) =>
    archiveItem(ctx, call.identity, input.id);

export const unarchive =
  (ctx: ParaContext): H['unarchive'] =>
  ({ input, ctx: call }) =>
    unarchiveItem(ctx, call.identity, input.id);

export const match =
  (ctx: ParaContext): H['match'] =>
  ({ input, ctx: call }) =>
    matchItem(ctx, call.identity, input.id);
