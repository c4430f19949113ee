import { z } from 'zod';
import {
  ById,
  ApiKey,
  ApiKeyCreated,
  AuthProviders,
  CookieSession,
  CreateApiKeyInput,
  LogoutBody,
  MagicLinkAccepted,
  MagicLinkRequest,
  MagicLinkVerify,
  OidcCallbackQuery,
  OidcStartQuery,
  OidcTokenRequest,
  RefreshBody,
  TokenPair,
  listOf,
  unauthorized,
} from '@kg/contracts';
import type { RateLimiter } from '@kg/kv';
import type { OidcSignIn } from '../sign-in/oidc';
import { presentedRefreshToken, wantsCookieSession, type SessionCookies } from '../sign-in/session-cookie';
import { defineRoute, noContent, ok, type Route, type RouteResult } from './route';

export interface AuthLimiters {
  perEmail: RateLimiter;
  perIp: RateLimiter;
  /** GET /auth/oidc/start per client address (each start stores a pending login). */
  oidcStartPerIp: RateLimiter;
}

export interface SignIn {
  oidc: OidcSignIn;
  cookies: SessionCookies;
}

/** A token pair as JSON, or for a dashboard session (`X-KG-Session: cookie`) the cookie form. */
const SignedIn = z.union([TokenPair, CookieSession]);
const SESSION_NOTE =
  ' With header `X-KG-Session: cookie` (the dashboard) the refresh token is set as an HttpOnly cookie and the body is a CookieSession.';

export const authRoutes = (limiters: AuthLimiters, signIn: SignIn): Route[] => {
  /** Token answers are never cached (RFC 6749 §5.1: Cache-Control: no-store). */
  const answer = (pair: TokenPair, cookie: boolean): RouteResult => {
    if (!cookie) return { status: 200, body: pair, headers: { 'Cache-Control': 'no-store' } };
    const { body, headers } = signIn.cookies.issue(pair);
    return { status: 200, body, headers: { ...headers, 'Cache-Control': 'no-store' } };
  };
  return [
    defineRoute({
      method: 'get',
      path: '/auth/providers',
      operationId: 'authProviders',
      summary: 'The sign-in methods this server offers (magic link; OpenID Connect when configured)',
      tag: 'Auth',
      auth: 'none',
      service: 'auth',
      success: { status: 200, description: 'Sign-in methods', schema: AuthProviders },
      async handle(_req, peers) {
        const oidc = await peers.auth.as(null).oidc.status({});
        return ok({ magic_link: true, oidc });
      },
    }),
    defineRoute({
      method: 'get',
      path: '/auth/oidc/start',
      operationId: 'startOidcSignIn',
      summary:
        'Start an OpenID Connect sign-in: redirects to the provider; the client gets a one-time code on its redirect_uri (PKCE S256)',
      tag: 'Auth',
      auth: 'none',
      service: 'auth',
      query: OidcStartQuery,
      success: { status: 302, description: "Redirect to the provider's authorization endpoint (Location)" },
      errors: [404, 429, 503],
      async handle(req, peers) {
        await req.limit([[limiters.oidcStartPerIp, req.ip]]);
        const location = await signIn.oidc.start(req.query, peers);
        return { status: 302, headers: { Location: location, 'Cache-Control': 'no-store' } };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/auth/oidc/callback',
      operationId: 'oidcCallback',
      summary:
        "The provider's redirect back (register PUBLIC_URL/api/v1/auth/oidc/callback): redirects to the client's redirect_uri with code and state, or error and state",
      tag: 'Auth',
      auth: 'none',
      service: 'auth',
      query: OidcCallbackQuery,
      success: { status: 302, description: 'Redirect to the client (Location)' },
      errors: [401, 503],
      async handle(req, peers) {
        const url = req.raw.originalUrl;
        const rawQuery = url.includes('?') ? url.slice(url.indexOf('?') + 1) : '';
        return {
          status: 302,
          headers: { Location: await signIn.oidc.callback(req.query, rawQuery, peers), 'Cache-Control': 'no-store' },
        };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/auth/oidc/token',
      operationId: 'exchangeOidcCode',
      summary:
        'Exchange the one-time code of an OpenID sign-in (once, 60 s) with the PKCE code_verifier for a token pair.' +
        SESSION_NOTE,
      tag: 'Auth',
      auth: 'none',
      service: 'auth',
      body: OidcTokenRequest,
      success: { status: 200, description: 'Signed in', schema: SignedIn },
      errors: [401],
      async handle(req) {
        return answer(await signIn.oidc.token(req.body), wantsCookieSession(req.raw));
      },
    }),
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
      summary: 'Exchange a magic-link token (single use, 15 minutes) for a token pair.' + SESSION_NOTE,
      tag: 'Auth',
      auth: 'none',
      service: 'auth',
      body: MagicLinkVerify,
      success: { status: 200, description: 'Signed in', schema: SignedIn },
      errors: [401],
      async handle(req, peers) {
        return answer(await peers.auth.as(null).magicLink.verify(req.body), wantsCookieSession(req.raw));
      },
    }),
    defineRoute({
      method: 'post',
      path: '/auth/refresh',
      operationId: 'refreshTokens',
      summary:
        'Rotate a refresh token; reusing a rotated one revokes its whole family (except the previous token within a 10 s grace window).' +
        ' A dashboard session sends {} with X-KG-Session: cookie and X-CSRF-Token (403 without a matching kg_csrf cookie).',
      tag: 'Auth',
      auth: 'none',
      service: 'auth',
      body: RefreshBody,
      success: { status: 200, description: 'A new token pair', schema: SignedIn },
      errors: [401, 403],
      async handle(req, peers) {
        const presented = presentedRefreshToken(req.raw, req.body, signIn.cookies);
        // No token at all: a missing credential, like any other (401).
        if (!presented) throw unauthorized('No refresh token: send refresh_token, or the session cookie');
        const pair = await peers.auth.as(null).tokens.refresh({ refresh_token: presented.token });
        return answer(pair, presented.fromCookie || wantsCookieSession(req.raw));
      },
    }),
    defineRoute({
      method: 'post',
      path: '/auth/logout',
      operationId: 'logout',
      summary:
        "Sign out: revokes the refresh token's whole family (idempotent: without a token or cookie nothing to revoke) and clears the session cookies; a cookie session sends {} with X-CSRF-Token",
      tag: 'Auth',
      auth: 'none',
      service: 'auth',
      body: LogoutBody,
      success: { status: 204, description: 'Signed out' },
      errors: [403],
      async handle(req, peers) {
        // Idempotent: no session (no token, no cookie) has nothing to revoke.
        const presented = presentedRefreshToken(req.raw, req.body, signIn.cookies);
        if (presented) await peers.auth.as(null).tokens.revoke({ refresh_token: presented.token });
        return { status: 204, headers: signIn.cookies.clear() };
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
        // This gateway stops accepting the key now; the others when the revocation event arrives.
        req.forgetApiKey(req.params.id);
        return noContent();
      },
    }),
  ];
};
