import type { graphApi } from '@kg/contracts';
import type { Handlers } from '@kg/trpc';
import type { GraphContext } from '../domain/context';
import { upsertCaptureNode } from '../domain/capture-nodes';

type H = Handlers<typeof graphApi>['captures'];

export const upsertNode =
  (ctx: GraphContext): H['upsertNode'] =>
  ({ input, ctx: call }) =>
    upsertCaptureNode(ctx, call.identity, input);
