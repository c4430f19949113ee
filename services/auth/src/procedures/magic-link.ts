import type { authApi } from '@kg/contracts';
import type { Handlers } from '@kg/trpc';
import type { Deps } from '../domain/deps';
import { ACCEPTED_DETAIL, requestMagicLink, verifyMagicLink } from '../domain/magic-link';

type H = Handlers<typeof authApi>['magicLink'];

/** magicLink.request: mails a sign-in link; always `accepted`, whether or not the email is known. */
export const request =
  (deps: Deps): H['request'] =>
  async ({ input }) => {
    await requestMagicLink(deps, input.email);
    return { status: 'accepted', detail: ACCEPTED_DETAIL };
  };

/** magicLink.verify: a token pair for a valid link, once. */
export const verify =
  (deps: Deps): H['verify'] =>
  ({ input }) =>
    verifyMagicLink(deps, input.token);
