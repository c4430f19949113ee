import { randomBytes, createHash, timingSafeEqual } from 'node:crypto';
import type { Request } from 'express';
import { AppError, unauthorized, type CookieSession, type TokenPair } from '@kg/contracts';

/**
 * The dashboard's cookie session (docs/API.md "Sign-in"). A request with header
 * `X-KG-Session: cookie` gets its refresh token only as an HttpOnly cookie scoped to the auth
 * endpoints, never in the body, and a double-submit CSRF token (body + readable cookie).
 */
export const SESSION_HEADER = 'x-kg-session';
export const CSRF_HEADER = 'x-csrf-token';
export const REFRESH_COOKIE = 'kg_refresh';
export const CSRF_COOKIE = 'kg_csrf';
/** The refresh cookie travels only to the auth endpoints. */
export const REFRESH_COOKIE_PATH = '/api/v1/auth';
/** The refresh token's own lifetime (30 days). */
const MAX_AGE_SECONDS = 30 * 24 * 3600;

export const wantsCookieSession = (req: Request) => req.header(SESSION_HEADER)?.trim().toLowerCase() === 'cookie';

/** Secure unless PUBLIC_URL is plain http on localhost or 127.0.0.1 (a local run without TLS). */
export function secureCookies(publicUrl: string): boolean {
  const url = new URL(publicUrl);
  return !(url.protocol === 'http:' && ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname));
}

/** The request's cookies (last one wins for a repeated name); values are percent-decoded when valid. */
export function cookiesOf(req: Request): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of (req.header('cookie') ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq <= 0) continue;
    const name = part.slice(0, eq).trim();
    const raw = part.slice(eq + 1).trim();
    try {
      out[name] = decodeURIComponent(raw);
    } catch {
      out[name] = raw;
    }
  }
  return out;
}

function cookie(
  name: string,
  value: string,
  opts: { path: string; httpOnly: boolean; secure: boolean; maxAge: number },
) {
  return [
    `${name}=${encodeURIComponent(value)}`,
    `Path=${opts.path}`,
    `Max-Age=${opts.maxAge}`,
    'SameSite=Strict',
    ...(opts.httpOnly ? ['HttpOnly'] : []),
    ...(opts.secure ? ['Secure'] : []),
  ].join('; ');
}

export function createSessionCookies(publicUrl: string) {
  const secure = secureCookies(publicUrl);
  const pair = (refresh: string, csrf: string, maxAge: number) => [
    cookie(REFRESH_COOKIE, refresh, { path: REFRESH_COOKIE_PATH, httpOnly: true, secure, maxAge }),
    // Readable by the dashboard's scripts (Path=/ so every page sees it), never a credential on its own.
    cookie(CSRF_COOKIE, csrf, { path: '/', httpOnly: false, secure, maxAge }),
  ];

  return {
    /** A sign-in or refresh answer as the dashboard gets it: the refresh token moves into the cookie. */
    issue(tokens: TokenPair): { body: CookieSession; headers: Record<string, string[]> } {
      const csrf = randomBytes(32).toString('base64url');
      return {
        body: {
          access_token: tokens.access_token,
          expires_in: tokens.expires_in,
          token_type: tokens.token_type,
          csrf_token: csrf,
        },
        headers: { 'Set-Cookie': pair(tokens.refresh_token, csrf, MAX_AGE_SECONDS) },
      };
    },
    /** Both cookies removed (sign-out). */
    clear: (): Record<string, string[]> => ({ 'Set-Cookie': pair('', '', 0) }),
    /**
     * The refresh token of a cookie session, after the double-submit check: header
     * X-CSRF-Token must equal the kg_csrf cookie (403 otherwise); no cookie: 401.
     */
    refreshTokenOf(req: Request): string {
      const cookies = cookiesOf(req);
      const token = cookies[REFRESH_COOKIE];
      if (!token) throw unauthorized('No session cookie; sign in again');
      const sent = req.header(CSRF_HEADER) ?? '';
      const expected = cookies[CSRF_COOKIE] ?? '';
      const digest = (v: string) => createHash('sha256').update(v).digest();
      if (!sent || !expected || !timingSafeEqual(digest(sent), digest(expected)))
        throw new AppError('forbidden', 'Missing or wrong X-CSRF-Token: send the value of the kg_csrf cookie');
      return token;
    },
  };
}
export type SessionCookies = ReturnType<typeof createSessionCookies>;

/**
 * The refresh token of a body or, for a dashboard session (the header, or the session
 * cookie without a body token), of its cookie; `fromCookie` tells which. Null: neither.
 */
export function presentedRefreshToken(
  req: Request,
  body: { refresh_token?: string | undefined },
  cookies: SessionCookies,
): { token: string; fromCookie: boolean } | null {
  if (body.refresh_token) return { token: body.refresh_token, fromCookie: false };
  if (wantsCookieSession(req) || cookiesOf(req)[REFRESH_COOKIE])
    return { token: cookies.refreshTokenOf(req), fromCookie: true };
  return null;
}
