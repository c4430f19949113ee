import type { authApi } from '@kg/contracts';
import type { Handlers } from '@kg/trpc';
import { createApiKey, listTenantApiKeys, revokeTenantApiKey, verifyApiKey } from '../domain/api-keys';
import type { Deps } from '../domain/deps';

type H = Handlers<typeof authApi>['apiKeys'];

/** apiKeys.create: a key for the caller's tenant (signed-in persons only: 403 for a key); the raw key is in this answer only. */
export const create =
  (deps: Deps): H['create'] =>
  ({ input, ctx }) =>
    createApiKey(deps, ctx.identity, input.name);

/** apiKeys.list: the tenant's keys, newest first, revoked ones included. */
export const list =
  (deps: Deps): H['list'] =>
  async ({ ctx }) => ({ data: await listTenantApiKeys(deps, ctx.identity.tenantId) });

/** apiKeys.revoke: idempotent; signed-in persons only (403 for a key); another tenant's or unknown id: 404. */
export const revoke =
  (deps: Deps): H['revoke'] =>
  async ({ input, ctx }) => {
    await revokeTenantApiKey(deps, ctx.identity, input.id);
    return { revoked: true };
  };

/** apiKeys.verify: the identity of a raw key (the gateway, on every ApiKey request). */
export const verify =
  (deps: Deps): H['verify'] =>
  ({ input }) =>
    verifyApiKey(deps, input.key);
