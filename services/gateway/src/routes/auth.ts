import {
  ById,
  ApiKey,
  ApiKeyCreated,
  CreateApiKeyInput,
  MagicLinkAccepted,
  MagicLinkRequest,
  MagicLinkVerify,
  RefreshRequest,
  TokenPair,
  listOf,
} from '@kg/contracts';
import type { RateLimiter } from '@kg/kv';
import { defineRoute, noContent, ok, type Route } from './route';

export interface AuthLimiters {
  perEmail: RateLimiter;
  perIp: RateLimiter;
}

export const authRoutes = (limiters: AuthLimiters): Route[] => [
  defineRoute({
    method: 'post',
    path: '/auth/magic-link',
    operationId: 'requestMagicLink',
    summary: 'Email a one-time sign-in link (the first sign-in of an email creates its tenant)',
    tag: 'Auth',
    auth: 'none',
    service: 'auth',
    body: MagicLinkRequest,
    success: { status: 202, description: 'Accepted; the mail is on its way', schema: MagicLinkAccepted },
    errors: [429],
    async handle(req, peers) {
      await req.limit([
        [limiters.perEmail, req.body.email],
        [limiters.perIp, req.ip],
      ]);
      return ok(await peers.auth.as(null).magicLink.request(req.body), 202);
    },
  }),
  defineRoute({
    method: 'post',
    path: '/auth/magic-link/verify',
    operationId: 'verifyMagicLink',
    summary: 'Exchange a magic-link token (single use, 15 minutes) for a token pair',
    tag: 'Auth',
    auth: 'none',
    service: 'auth',
    body: MagicLinkVerify,
    success: { status: 200, description: 'Signed in', schema: TokenPair },
    errors: [401],
    async handle(req, peers) {
      return ok(await peers.auth.as(null).magicLink.verify(req.body));
    },
  }),
  defineRoute({
    method: 'post',
    path: '/auth/refresh',
    operationId: 'refreshTokens',
    summary: 'Rotate a refresh token; reusing a rotated one revokes its whole family',
    tag: 'Auth',
    auth: 'none',
    service: 'auth',
    body: RefreshRequest,
    success: { status: 200, description: 'A new token pair', schema: TokenPair },
    errors: [401],
    async handle(req, peers) {
      return ok(await peers.auth.as(null).tokens.refresh(req.body));
    },
  }),
  defineRoute({
    method: 'get',
    path: '/auth/api-keys',
    operationId: 'listApiKeys',
    summary: 'List API keys (newest first, revoked ones included)',
    tag: 'API keys',
    auth: 'required',
    service: 'auth',
    success: { status: 200, description: 'The keys, without secrets', schema: listOf(ApiKey) },
    async handle(req, peers) {
      return ok(await peers.auth.as(req.identity).apiKeys.list({}));
    },
  }),
  defineRoute({
    method: 'post',
    path: '/auth/api-keys',
    operationId: 'createApiKey',
    summary: 'Create an API key (signed-in persons only: 403 with an API key); the raw key is returned only here',
    tag: 'API keys',
    auth: 'required',
    service: 'auth',
    body: CreateApiKeyInput,
    success: { status: 201, description: 'Created', schema: ApiKeyCreated },
    errors: [403],
    async handle(req, peers) {
      return ok(await peers.auth.as(req.identity).apiKeys.create(req.body), 201);
    },
  }),
  defineRoute({
    method: 'delete',
    path: '/auth/api-keys/:id',
    operationId: 'revokeApiKey',
    summary: 'Revoke an API key (idempotent; signed-in persons only: 403 with an API key)',
    tag: 'API keys',
    auth: 'required',
    service: 'auth',
    params: ById,
    success: { status: 204, description: 'Revoked' },
    errors: [403, 404],
    async handle(req, peers) {
      await peers.auth.as(req.identity).apiKeys.revoke({ id: req.params.id });
      return noContent();
    },
  }),
];
