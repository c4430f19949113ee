import { authApi } from '@kg/contracts';
import { defineRouter } from '@kg/trpc';
import type { AuthContext } from './domain/deps';
import * as apiKeys from './procedures/api-keys';
import * as magicLink from './procedures/magic-link';
import * as tokens from './procedures/tokens';

/** authRouter: magic-link sign-in, token rotation, public keys, API keys. */
export const createAuthRouter = (ctx: AuthContext) =>
  defineRouter(authApi, {
    magicLink: { request: magicLink.request(ctx), verify: magicLink.verify(ctx) },
    tokens: { refresh: tokens.refresh(ctx), jwks: tokens.jwks(ctx) },
    apiKeys: {
      create: apiKeys.create(ctx),
      list: apiKeys.list(ctx),
      revoke: apiKeys.revoke(ctx),
      verify: apiKeys.verify(ctx),
    },
  });
