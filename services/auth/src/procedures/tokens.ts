import type { authApi } from '@kg/contracts';
import type { Handlers } from '@kg/trpc';
import type { AuthContext } from '../domain/deps';
import { refresh as rotate } from '../domain/sessions';

type H = Handlers<typeof authApi>['tokens'];

export const refresh =
  (ctx: AuthContext): H['refresh'] =>
  ({ input }) =>
    rotate(ctx, input.refresh_token);

/** The public keys other services verify access tokens with. */
export const jwks =
  (ctx: AuthContext): H['jwks'] =>
  async () => ({ keys: [ctx.keys.publicJwk as Record<string, unknown>] });
