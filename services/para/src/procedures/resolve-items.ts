import type { paraApi } from '@kg/contracts';
import type { Handlers } from '@kg/trpc';
import type { ParaContext } from '../domain/context';
import { findItems } from '../store/items';

export const resolveItems =
  (ctx: ParaContext): Handlers<typeof paraApi>['items']['resolve'] =>
  async ({ input, ctx: call }) => ({ items: await findItems(ctx.db, call.identity.tenantId, input.ids) });
