import type { authApi } from '@kg/contracts';
import type { Handlers } from '@kg/trpc';
import { publicKeySet } from '../domain/access-token';
import type { Deps } from '../domain/deps';
import { revokeRefreshSession, rotateRefreshToken } from '../domain/sessions';

type H = Handlers<typeof authApi>['tokens'];

/** tokens.refresh: rotates a refresh token into a new pair. */
export const refresh =
  (deps: Deps): H['refresh'] =>
  ({ input }) =>
    rotateRefreshToken(deps, input.refresh_token);

/** tokens.jwks: the public keys access tokens verify with. */
export const jwks =
  (deps: Deps): H['jwks'] =>
  async () =>
    publicKeySet(deps.keys);

/** tokens.revoke: sign-out; the token's whole family is revoked (idempotent). */
export const revoke =
  (deps: Deps): H['revoke'] =>
  async ({ input }) => ({ revoked: await revokeRefreshSession(deps, input.refresh_token) });
