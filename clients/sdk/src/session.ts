import { readClientEnv, type ClientEnv } from './config.ts';
import { ApiError, AuthRequiredError, NetworkError, apiErrorFrom } from './errors.ts';
import { withFileLock } from './file-lock.ts';
import { ProfileStore, type StoredLogin } from './profile-store.ts';

/** What POST /auth/magic-link/verify, /auth/oidc/token and /auth/refresh answer. */
export interface TokenPair {
  access_token: string;
  refresh_token: string;
  expires_in: number;
}

export interface SessionOptions {
  /** Defaults to `readClientEnv()` (SVC_API_URL, SVC_TOKEN, KG_CONFIG_DIR / XDG). */
  env?: ClientEnv;
  /** Refresh this long before the access token expires (default 60 s; at most a quarter of its lifetime). */
  refreshMarginMs?: number;
  fetch?: typeof fetch;
  /** `user-agent` sent with every request. */
  userAgent?: string;
}

/** A request that can be built again, for the retry after a refresh (streamed bodies are read once). */
export type RequestFactory = () => Request;

/**
 * The caller's credential and its upkeep. With SVC_TOKEN it sends that API key and never
 * signs in. Otherwise it uses the login stored for the base URL and refreshes it
 * automatically: before the access token expires, and after a 401, once, before the
 * request is retried.
 *
 * Several processes sharing one profile: the refresh runs under a per-profile lock file
 * (`<profile>.json.lock`); the process that takes it first re-reads the profile and, when
 * another process already rotated the tokens, uses those instead of refreshing again. Two
 * machines (or config directories) holding the same refresh token are covered by the
 * server's grace window for the immediately previous refresh token (docs/API.md "Sign-in").
 */
export class Session {
  readonly baseUrl: string;
  readonly apiKey: string | undefined;
  readonly store: ProfileStore;
  private readonly margin: number;
  private readonly doFetch: typeof fetch;
  private readonly userAgent: string | undefined;
  private cached: StoredLogin | null | undefined;
  private refreshing: Promise<StoredLogin> | null = null;

  constructor(opts: SessionOptions = {}) {
    const env = opts.env ?? readClientEnv();
    this.baseUrl = env.baseUrl;
    this.apiKey = env.apiKey;
    this.store = new ProfileStore(env.configDir, env.baseUrl);
    this.margin = opts.refreshMarginMs ?? 60_000;
    this.doFetch = opts.fetch ?? globalThis.fetch.bind(globalThis);
    this.userAgent = opts.userAgent;
  }

  /** `api_key` with SVC_TOKEN, `login` with a stored login, `none` otherwise. */
  async kind(): Promise<'api_key' | 'login' | 'none'> {
    if (this.apiKey) return 'api_key';
    return (await this.login()) ? 'login' : 'none';
  }

  /** The stored login for this base URL, if any (read once per Session, then kept up to date). */
  async login(): Promise<StoredLogin | null> {
    if (this.cached === undefined) this.cached = await this.store.read();
    return this.cached;
  }

  /** Stores a fresh token pair (after a magic link or an OIDC sign-in). */
  async saveLogin(pair: TokenPair, email?: string): Promise<StoredLogin> {
    const login: StoredLogin = {
      base_url: this.baseUrl,
      access_token: pair.access_token,
      refresh_token: pair.refresh_token,
      expires_at: Date.now() + pair.expires_in * 1000,
      email: email ?? (await this.login())?.email,
      saved_at: new Date().toISOString(),
    };
    await this.store.write(login);
    this.cached = login;
    return login;
  }

  /** Forgets the stored login (the caller revokes it on the server first). */
  async forget(): Promise<void> {
    await this.store.remove();
    this.cached = null;
  }

  /** The Authorization header value, refreshing the stored login first when it is about to expire. */
  async authorization(): Promise<string> {
    if (this.apiKey) return `ApiKey ${this.apiKey}`;
    let login = await this.login();
    if (!login) throw new AuthRequiredError(`Not signed in to ${this.baseUrl}. Run \`kg login\` or set SVC_TOKEN.`);
    if (this.refreshDue(login)) login = await this.refresh(login.access_token);
    return `Bearer ${login.access_token}`;
  }

  /**
   * Due `refreshMarginMs` (60 s) before expiry, or a quarter of the token's lifetime before
   * it when that is shorter (a server issuing 3-second tokens does not get a refresh per request).
   */
  private refreshDue(login: StoredLogin): boolean {
    const lifetime = login.expires_at - Date.parse(login.saved_at);
    const margin = Number.isFinite(lifetime) && lifetime > 0 ? Math.min(this.margin, lifetime / 4) : this.margin;
    return login.expires_at - margin <= Date.now();
  }

  /**
   * Rotates the stored tokens (POST /auth/refresh) under the profile lock. `staleAccess` is
   * the access token the caller found wanting: if the profile already holds another one,
   * a concurrent process refreshed in the meantime and its tokens are used as they are.
   */
  refresh(staleAccess: string): Promise<StoredLogin> {
    // One refresh at a time inside this process too; concurrent callers share it.
    this.refreshing ??= withFileLock(this.store.lockFile, async () => {
      const current = await this.store.read();
      if (!current) throw new AuthRequiredError(`Signed out of ${this.baseUrl}. Run \`kg login\`.`);
      if (current.access_token !== staleAccess && !this.refreshDue(current)) {
        this.cached = current;
        return current;
      }
      const res = await this.send(
        new Request(`${this.baseUrl}/auth/refresh`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ refresh_token: current.refresh_token }),
        }),
      );
      if (res.status === 401 || res.status === 400) {
        await res.body?.cancel();
        throw new AuthRequiredError(`Your session with ${this.baseUrl} has ended. Run \`kg login\` again.`);
      }
      if (!res.ok) throw await apiErrorFrom(res);
      return this.saveLogin((await res.json()) as TokenPair, current.email);
    }).finally(() => {
      this.refreshing = null;
    });
    return this.refreshing;
  }

  /**
   * Sends a request with the caller's credential. A 401 with a stored login refreshes it once
   * and retries (the request is rebuilt by `make`, so a streamed body is read again).
   */
  async fetch(make: Request | RequestFactory): Promise<Response> {
    const build = typeof make === 'function' ? make : () => make.clone();
    const auth = await this.authorization();
    const res = await this.send(withAuth(build(), auth));
    if (res.status !== 401 || this.apiKey) return res;
    await res.body?.cancel();
    const login = await this.refresh(auth.slice('Bearer '.length));
    return this.send(withAuth(build(), `Bearer ${login.access_token}`));
  }

  /** Sends a request as it is (no credential), turning connection failures into NetworkError. */
  async send(req: Request): Promise<Response> {
    if (this.userAgent && !req.headers.has('user-agent')) req.headers.set('user-agent', this.userAgent);
    try {
      return await this.doFetch(req);
    } catch (e) {
      if (e instanceof ApiError) throw e;
      if ((e as Error).name === 'AbortError') throw e;
      const cause = (e as { cause?: { code?: string; message?: string } }).cause;
      const why = cause?.code ?? cause?.message ?? (e as Error).message;
      throw new NetworkError(`Cannot reach ${this.baseUrl} (${why})`);
    }
  }
}

function withAuth(req: Request, authorization: string): Request {
  req.headers.set('authorization', authorization);
  return req;
}
