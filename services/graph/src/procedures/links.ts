import type { graphApi } from '@kg/contracts';
import type { Handlers } from '@kg/trpc';
import type { GraphContext } from '../domain/context';
import { relatedNodes, replaceLinks } from '../domain/links';

type H = Handlers<typeof graphApi>['links'];

export const replace =
  (ctx: GraphContext): H['replace'] =>
  ({ input, ctx: call }) =>
    replaceLinks(ctx, call.identity.tenantId, input.id, input.links);

export const relatedTo =
  (ctx: GraphContext): H['related'] =>
  ({ input, ctx: call }) =>
    relatedNodes(ctx, call.identity.tenantId, input.id, input.limit);
