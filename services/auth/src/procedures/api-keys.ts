import type { authApi } from '@kg/contracts';
import type { Handlers } from '@kg/trpc';
import type { AuthContext } from '../domain/deps';
import { createApiKey, listKeys, revokeKey, verifyKey } from '../domain/api-keys';

type H = Handlers<typeof authApi>['apiKeys'];

export const create =
  (ctx: AuthContext): H['create'] =>
  ({ input, ctx: call }) =>
    createApiKey(ctx, call.identity, input.name);

export const list =
  (ctx: AuthContext): H['list'] =>
  async ({ ctx: call }) => ({ data: await listKeys(ctx, call.identity.tenantId) });

export const revoke =
  (ctx: AuthContext): H['revoke'] =>
  async ({ input, ctx: call }) => {
    await revokeKey(ctx, call.identity.tenantId, input.id);
    return { revoked: true };
  };

export const verify =
  (ctx: AuthContext): H['verify'] =>
  ({ input }) =>
    verifyKey(ctx, input.key);
