import type { graphApi } from '@kg/contracts';
import type { Handlers } from '@kg/trpc';
import { graphHealth, neighborsView, seedView, type ViewContext } from '../domain/views';

type H = Handlers<typeof graphApi>['views'];

export const seed =
  (ctx: ViewContext): H['seed'] =>
  ({ input, ctx: call }) =>
    seedView(ctx, call.identity, input);

export const neighbors =
  (ctx: ViewContext): H['neighbors'] =>
  ({ input: { id, ...query }, ctx: call }) =>
    neighborsView(ctx, call.identity, id, query);

export const health =
  (ctx: ViewContext): H['health'] =>
  ({ ctx: call }) =>
    graphHealth(ctx, call.identity.tenantId);
