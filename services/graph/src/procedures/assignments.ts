import type { graphApi } from '@kg/contracts';
import type { Handlers } from '@kg/trpc';
import type { GraphContext } from '../domain/context';
import { archiveItemAssignments, restoreItemAssignments } from '../domain/assignments';

type H = Handlers<typeof graphApi>['assignments'];

export const archiveItem =
  (ctx: GraphContext): H['archiveItem'] =>
  async ({ input, ctx: call }) => ({
    archived: await archiveItemAssignments(ctx, call.identity.tenantId, input.para_item_id, input.status_version),
  });

export const restoreItem =
  (ctx: GraphContext): H['restoreItem'] =>
  async ({ input, ctx: call }) => ({
    restored: await restoreItemAssignments(ctx, call.identity.tenantId, input.para_item_id, input.status_version),
  });
