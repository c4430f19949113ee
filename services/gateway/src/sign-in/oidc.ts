import { createCipheriv, createDecipheriv, createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { AppError, unauthorized, type TokenPair } from '@kg/contracts';
import type { KvStore } from '@kg/kv';
import { problemFromClientError } from '@kg/trpc';
import type { GatewayPeers } from '../peers';

/**
 * OpenID Connect sign-in at the gateway (docs/API.md "Sign-in"): the pending login and the
 * one-time code live in kv (shared by every gateway replica), the provider protocol in the
 * auth service. Both kv entries are taken atomically (one use).
 */

/** A login waits this long for the person at the provider. */
export const PENDING_LOGIN_TTL_SECONDS = 600;
/** The one-time code handed to the client works once, within this many seconds. */
export const ONE_TIME_CODE_TTL_SECONDS = 60;
/** The dashboard's callback page, under PUBLIC_URL. */
export const DASHBOARD_CALLBACK_PATH = '/auth/callback';

const random = () => randomBytes(32).toString('base64url');
const sha256 = (v: string) => createHash('sha256').update(v).digest();
const s256 = (verifier: string) => sha256(verifier).toString('base64url');
/** Constant-time equality of two strings (compared as digests, so lengths leak nothing). */
const sameText = (a: string, b: string) => timingSafeEqual(sha256(a), sha256(b));

/**
 * Where a one-time code may be sent: a loopback http URL with a port on 127.0.0.1 or [::1]
 * (RFC 8252 §7.3: native clients; any port), or exactly PUBLIC_URL/auth/callback (the dashboard).
 */
export function allowedRedirect(raw: string, publicUrl: string): boolean {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return false;
  }
  if (url.username || url.password || raw.includes('#')) return false;
  if (url.protocol === 'http:' && (url.hostname === '127.0.0.1' || url.hostname === '[::1]') && url.port) return true;
  const dashboard = new URL(publicUrl.replace(/\/+$/, '') + DASHBOARD_CALLBACK_PATH);
  return url.origin === dashboard.origin && url.pathname === dashboard.pathname && !url.search;
}

interface PendingLogin {
  nonce: string;
  verifier: string;
  redirectUri: string;
  codeChallenge: string;
  clientState: string;
}

interface IssuedCode {
  pair: TokenPair;
  codeChallenge: string;
  redirectUri: string;
}

/**
 * The code's grant is stored encrypted (AES-256-GCM) under a key derived from the code, and
 * found by another hash of it: kv (Redis) never holds a usable token or the code itself.
 */
const keysOf = (code: string) => ({
  id: `oidc:code:${sha256(`id:${code}`).toString('hex')}`,
  key: sha256(`key:${code}`),
});

function seal(code: string, value: IssuedCode): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', keysOf(code).key, iv);
  const body = Buffer.concat([cipher.update(JSON.stringify(value), 'utf8'), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url');
}

function unseal(code: string, sealed: string): IssuedCode | null {
  try {
    const raw = Buffer.from(sealed, 'base64url');
    const decipher = createDecipheriv('aes-256-gcm', keysOf(code).key, raw.subarray(0, 12));
    decipher.setAuthTag(raw.subarray(12, 28));
    const text = Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
    return JSON.parse(text) as IssuedCode;
  } catch {
    return null;
  }
}

/** `redirect_uri` with the given query parameters added (its own ones kept). */
export function redirectTo(redirectUri: string, params: Record<string, string>): string {
  const url = new URL(redirectUri);
  for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
  return url.toString();
}

/** The `error` codes a client may receive on its redirect_uri (docs/API.md "Sign-in"). */
export type CallbackError =
  'access_denied' | 'email_not_verified' | 'sign_in_failed' | 'temporarily_unavailable' | 'server_error';

const ERROR_TEXT: Record<CallbackError, string> = {
  access_denied: 'The sign-in was cancelled or refused at the provider',
  email_not_verified:
    'An account with this e-mail address exists and the provider has not verified the address; sign in with a magic link',
  sign_in_failed: 'The sign-in could not be verified; start again',
  temporarily_unavailable: 'The provider or the server is temporarily unavailable; try again shortly',
  server_error: 'The sign-in failed on the server',
};

export function createOidcSignIn(deps: { kv: KvStore; publicUrl: string }) {
  const { kv, publicUrl } = deps;
  const anon = (peers: GatewayPeers) => peers.auth.as(null);

  return {
    /** GET /auth/oidc/start: a pending login in kv and the provider's authorization URL. */
    async start(
      q: { redirect_uri: string; code_challenge: string; state: string },
      peers: GatewayPeers,
    ): Promise<string> {
      const auth = () => anon(peers);
      if (!allowedRedirect(q.redirect_uri, publicUrl))
        throw new AppError('invalid', 'The request query failed validation', {
          errors: [
            {
              path: 'query.redirect_uri',
              message: `must be http://127.0.0.1:<port>/… or http://[::1]:<port>/… (RFC 8252), or ${publicUrl.replace(/\/+$/, '')}${DASHBOARD_CALLBACK_PATH}`,
            },
          ],
        });
      // 404 when OIDC is not configured, before anything is stored.
      if (!(await auth().oidc.status({})).enabled)
        throw new AppError('not_found', 'OpenID Connect sign-in is not configured on this server');
      const state = random();
      const login: PendingLogin = {
        nonce: random(),
        verifier: random(),
        redirectUri: q.redirect_uri,
        codeChallenge: q.code_challenge,
        clientState: q.state,
      };
      await kv.set(`oidc:login:${state}`, JSON.stringify(login), PENDING_LOGIN_TTL_SECONDS);
      const { authorization_url } = await auth().oidc.authorize({
        state,
        nonce: login.nonce,
        code_challenge: s256(login.verifier),
      });
      return authorization_url;
    },

    /**
     * GET /auth/oidc/callback: the pending login taken (one use), the provider's answer
     * redeemed by auth, and a one-time code for the client. Returns the client redirect;
     * an unknown state has no client to go back to (401).
     */
    async callback(
      q: { state: string; error?: string | undefined },
      rawQuery: string,
      peers: GatewayPeers,
    ): Promise<string> {
      const auth = () => anon(peers);
      const stored = await kv.take(`oidc:login:${q.state}`);
      // Like an unknown one-time token: 401 (no client to send back to, so no redirect).
      if (!stored) throw unauthorized('Unknown, used or expired sign-in state; start the sign-in again');
      const login = JSON.parse(stored) as PendingLogin;
      const fail = (error: CallbackError) =>
        redirectTo(login.redirectUri, { error, error_description: ERROR_TEXT[error], state: login.clientState });
      if (q.error) return fail('access_denied');
      let pair: TokenPair;
      try {
        pair = await auth().oidc.complete({
          callback_query: rawQuery,
          state: q.state,
          nonce: login.nonce,
          code_verifier: login.verifier,
        });
      } catch (err) {
        const status = problemFromClientError(err, 'auth')?.status;
        if (status === 403) return fail('email_not_verified');
        if (status === 401 || status === 400) return fail('sign_in_failed');
        if (status === 503) return fail('temporarily_unavailable');
        return fail('server_error');
      }
      const code = random();
      const issued: IssuedCode = { pair, codeChallenge: login.codeChallenge, redirectUri: login.redirectUri };
      await kv.set(keysOf(code).id, seal(code, issued), ONE_TIME_CODE_TTL_SECONDS);
      return redirectTo(login.redirectUri, { code, state: login.clientState });
    },

    /** POST /auth/oidc/token: the one-time code (once), checked against the client's PKCE verifier and redirect_uri. */
    async token(b: { code: string; code_verifier: string; redirect_uri: string }): Promise<TokenPair> {
      const sealed = await kv.take(keysOf(b.code).id);
      const issued = sealed ? unseal(b.code, sealed) : null;
      if (
        !issued ||
        !sameText(s256(b.code_verifier), issued.codeChallenge) ||
        !sameText(b.redirect_uri, issued.redirectUri)
      )
        throw unauthorized(
          'Invalid, used or expired sign-in code, or a code_verifier or redirect_uri that does not match',
        );
      return issued.pair;
    },
  };
}
export type OidcSignIn = ReturnType<typeof createOidcSignIn>;
