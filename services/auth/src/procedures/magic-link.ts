import type { authApi } from '@kg/contracts';
import type { Handlers } from '@kg/trpc';
import type { AuthContext } from '../domain/deps';
import { requestMagicLink, verifyMagicLink } from '../domain/magic-link';

type H = Handlers<typeof authApi>['magicLink'];

export const request =
  (ctx: AuthContext): H['request'] =>
  async ({ input }) => {
    await requestMagicLink(ctx, input.email);
    return { status: 'accepted', detail: 'If the address can receive mail, a sign-in link is on its way.' };
  };

export const verify =
  (ctx: AuthContext): H['verify'] =>
  ({ input }) =>
    verifyMagicLink(ctx, input.token);
