import type { paraApi } from '@kg/contracts';
import type { Handlers } from '@kg/trpc';
import type { Db } from '@kg/db';
import { findItems } from '../store/items';

export const resolveItems =
  (db: Db): Handlers<typeof paraApi>['items']['resolve'] =>
  async ({ input, ctx }) => ({ items: await findItems(db, ctx.identity.tenantId, input.ids) });
