import type { graphApi } from '@kg/contracts';
import type { Handlers } from '@kg/trpc';
import type { GraphContext } from '../domain/context';
import { autoAssign as assign, orphanCount, orphanPage } from '../domain/reclassify';

type H = Handlers<typeof graphApi>;

export const orphans =
  (ctx: GraphContext): H['reclassify']['orphans'] =>
  ({ input, ctx: call }) =>
    orphanPage(ctx, call.identity.tenantId, input);

export const count =
  (ctx: GraphContext): H['reclassify']['count'] =>
  async ({ ctx: call }) => ({ count: await orphanCount(ctx, call.identity.tenantId) });

export const autoAssign =
  (ctx: GraphContext): H['assignments']['autoAssign'] =>
  async ({ input, ctx: call }) => ({ assigned: await assign(ctx, call.identity.tenantId, input.assignments) });
