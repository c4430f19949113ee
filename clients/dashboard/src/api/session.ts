/**
 * The browser session (docs/API.md "Sign-in", dashboard session): the refresh token lives in
 * an HttpOnly cookie scripts cannot read; the access token lives in this module's memory
 * only (never localStorage), refreshed shortly before it expires with the double-submit
 * CSRF token (the readable `kg_csrf` cookie echoed in `X-CSRF-Token`).
 */
const AUTH = '/api/v1/auth';
const SESSION_HEADER = { 'X-KG-Session': 'cookie' } as const;
/** Refresh this long before the access token expires. */
const EARLY_MS = 60_000;

interface SessionTokens {
  access_token: string;
  expires_in: number;
  csrf_token?: string;
}

type Listener = (signedIn: boolean) => void;

let access: { token: string; expiresAt: number } | null = null;
let csrf: string | null = null;
let pending: Promise<boolean> | null = null;
const listeners = new Set<Listener>();

export function readCookie(name: string): string | null {
  for (const part of document.cookie.split(';')) {
    const [key, ...rest] = part.trim().split('=');
    if (key === name) return decodeURIComponent(rest.join('='));
  }
  return null;
}

function notify() {
  for (const listener of listeners) listener(access !== null);
}

export function onSessionChange(listener: Listener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export const isSignedIn = () => access !== null;

function accept(body: SessionTokens) {
  access = { token: body.access_token, expiresAt: Date.now() + body.expires_in * 1000 };
  if (body.csrf_token) csrf = body.csrf_token;
  notify();
}

/** Thrown with the server's problem detail when a sign-in step is refused. */
export class SignInError extends Error {
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
  }
}

async function post(path: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${AUTH}${path}`, {
    method: 'POST',
    credentials: 'same-origin',
    cache: 'no-store',
    headers: { 'content-type': 'application/json', ...SESSION_HEADER, ...headers },
    body: JSON.stringify(body),
  });
}

async function problemText(res: Response): Promise<string> {
  try {
    const problem = (await res.json()) as { detail?: string; title?: string };
    return problem.detail ?? problem.title ?? `HTTP ${res.status}`;
  } catch {
    return `HTTP ${res.status}`;
  }
}

async function signInWith(path: string, body: unknown): Promise<void> {
  const res = await post(path, body);
  if (!res.ok) throw new SignInError(await problemText(res), res.status);
  accept((await res.json()) as SessionTokens);
}

/** Exchanges the token of a mailed link (read from the address fragment) for a session. */
export const verifyMagicLink = (token: string) => signInWith('/magic-link/verify', { token });

/** Exchanges the one-time code the OpenID callback brought back, with this tab's PKCE verifier. */
export const exchangeOidcCode = (code: string, codeVerifier: string, redirectUri: string) =>
  signInWith('/oidc/token', { code, code_verifier: codeVerifier, redirect_uri: redirectUri });

/**
 * A new access token from the refresh cookie; false when there is no session (signed out).
 * Concurrent callers share one request (the refresh token rotates on every use).
 */
export function refresh(): Promise<boolean> {
  pending ??= (async () => {
    const token = readCookie('kg_csrf') ?? csrf;
    if (!token) return false;
    const before = access;
    try {
      const res = await post('/refresh', {}, { 'X-CSRF-Token': token });
      if (!res.ok) {
        // A sign-in that finished meanwhile (a new access token) is not undone by a stale cookie.
        if ((res.status === 401 || res.status === 403) && access === before) clear();
        return false;
      }
      accept((await res.json()) as SessionTokens);
      return true;
    } catch {
      return false;
    }
  })().finally(() => {
    pending = null;
  });
  return pending;
}

/** The current access token, refreshed first when it is about to expire; null when signed out. */
export async function accessToken(): Promise<string | null> {
  if (access && access.expiresAt - Date.now() > EARLY_MS) return access.token;
  if (!(await refresh())) return access && access.expiresAt > Date.now() ? access.token : null;
  return access?.token ?? null;
}

function clear() {
  const was = access !== null;
  access = null;
  csrf = null;
  if (was) notify();
}

/** Forgets the access token after a 401 the server gave it (the next call refreshes or signs out). */
export function expireAccessToken() {
  if (access) access.expiresAt = 0;
}

/** Revokes the session's refresh family on the server and clears the cookies. */
export async function signOut(): Promise<void> {
  const token = readCookie('kg_csrf') ?? csrf;
  try {
    await post('/logout', {}, token ? { 'X-CSRF-Token': token } : {});
  } finally {
    clear();
    listeners.forEach((l) => l(false));
  }
}
