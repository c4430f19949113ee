import type { authApi } from '@kg/contracts';
import type { Handlers } from '@kg/trpc';
import type { Deps } from '../domain/deps';
import { completeOidcSignIn, oidcAuthorizationUrl, oidcStatus } from '../oidc/sign-in';

type H = Handlers<typeof authApi>['oidc'];

/** oidc.status: whether OpenID sign-in is configured, and with which provider. */
export const status =
  (deps: Deps): H['status'] =>
  async () =>
    oidcStatus(deps);

/** oidc.authorize: the provider's authorization URL for a pending login the gateway keeps (404 when not configured). */
export const authorize =
  (deps: Deps): H['authorize'] =>
  async ({ input }) => ({
    authorization_url: await oidcAuthorizationUrl(deps, {
      state: input.state,
      nonce: input.nonce,
      codeChallenge: input.code_challenge,
    }),
  });

/** oidc.complete: the provider's redirect verified and redeemed; our token pair for the person. */
export const complete =
  (deps: Deps): H['complete'] =>
  ({ input }) =>
    completeOidcSignIn(deps, {
      callbackQuery: input.callback_query,
      state: input.state,
      nonce: input.nonce,
      codeVerifier: input.code_verifier,
    });
