import type { graphApi } from '@kg/contracts';
import type { Handlers } from '@kg/trpc';
import type { GraphContext } from '../domain/context';
import { createNode, getNode, patchNode, removeNode, searchNodes } from '../domain/nodes';

type H = Handlers<typeof graphApi>['nodes'];

export const create =
  (ctx: GraphContext): H['create'] =>
  ({ input, ctx: call }) =>
    createNode(ctx, call.identity, input);

export const get =
  (ctx: GraphContext): H['get'] =>
  ({ input, ctx: call }) =>
    getNode(ctx, call.identity.tenantId, input.id);

export const update =
  (ctx: GraphContext): H['update'] =>
  ({ input, ctx: call }) =>
    patchNode(ctx, call.identity, input.id, input.patch);

export const remove =
  (ctx: GraphContext): H['delete'] =>
  async ({ input, ctx: call }) => {
    await removeNode(ctx, call.identity.tenantId, input.id);
    return { deleted: true };
  };

export const list =
  (ctx: GraphContext): H['list'] =>
  ({ input, ctx: call }) =>
    searchNodes(ctx, call.identity.tenantId, input);
