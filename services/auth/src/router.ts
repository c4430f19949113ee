import { authApi } from '@kg/contracts';
import { defineRouter } from '@kg/trpc';
import type { Deps } from './domain/deps';
import * as apiKeys from './procedures/api-keys';
import * as magicLink from './procedures/magic-link';
import * as oidc from './procedures/oidc';
import * as tokens from './procedures/tokens';

/** authRouter: magic-link and OpenID sign-in, token rotation, public keys, API keys. */
export const createAuthRouter = (deps: Deps) =>
  defineRouter(authApi, {
    magicLink: { request: magicLink.request(deps), verify: magicLink.verify(deps) },
    tokens: { refresh: tokens.refresh(deps), jwks: tokens.jwks(deps), revoke: tokens.revoke(deps) },
    oidc: { status: oidc.status(deps), authorize: oidc.authorize(deps), complete: oidc.complete(deps) },
    apiKeys: {
      create: apiKeys.create(deps),
      list: apiKeys.list(deps),
      revoke: apiKeys.revoke(deps),
      verify: apiKeys.verify(deps),
    },
  });
