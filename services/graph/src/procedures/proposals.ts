import type { graphApi } from '@kg/contracts';
import type { Handlers } from '@kg/trpc';
import type { GraphContext } from '../domain/context';
import { acceptProposal, dismissProposal, nodeProposals, recordProposals } from '../domain/proposals';

type H = Handlers<typeof graphApi>['proposals'];

export const record =
  (ctx: GraphContext): H['record'] =>
  ({ input, ctx: call }) =>
    recordProposals(ctx, call.identity, input);

export const list =
  (ctx: GraphContext): H['list'] =>
  ({ input, ctx: call }) =>
    nodeProposals(ctx, call.identity.tenantId, input.id, input.status);

export const accept =
  (ctx: GraphContext): H['accept'] =>
  ({ input, ctx: call }) =>
    acceptProposal(ctx, call.identity, input.id, input.proposal_id);

export const dismiss =
  (ctx: GraphContext): H['dismiss'] =>
  ({ input, ctx: call }) =>
    dismissProposal(ctx, call.identity.tenantId, input.id, input.proposal_id);
