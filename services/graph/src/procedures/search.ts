import type { graphApi } from '@kg/contracts';
import type { Handlers } from '@kg/trpc';
import type { GraphContext } from '../domain/context';
import { keywordHits } from '../domain/keyword';

type H = Handlers<typeof graphApi>['search'];

export const keyword =
  (ctx: GraphContext): H['keyword'] =>
  ({ input, ctx: call }) =>
    keywordHits(ctx, call.identity.tenantId, input);
