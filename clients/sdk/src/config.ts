import { homedir } from 'node:os';
import path from 'node:path';
import { ConfigError } from './errors.ts';

export const DEFAULT_API_URL = 'http://localhost:8080/api/v1';

/** What the SDK reads from the environment, read once by `readClientEnv`. */
export interface ClientEnv {
  /** Base address of the API, `…/api/v1`, without a trailing slash. */
  baseUrl: string;
  /** An API key from SVC_TOKEN (`key_….secret`); when set, the stored login is not used. */
  apiKey: string | undefined;
  /** Directory holding the stored logins (one profile per base URL). */
  configDir: string;
}

type Env = Record<string, string | undefined>;

/** `SVC_API_URL` (default http://localhost:8080/api/v1): an http(s) URL, trailing slashes dropped. */
export function parseBaseUrl(raw: string | undefined): string {
  const value = (raw ?? '').trim() || DEFAULT_API_URL;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ConfigError(`SVC_API_URL is not a URL: ${value}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new ConfigError(`SVC_API_URL must be an http:// or https:// URL, got ${url.protocol}`);
  if (url.username || url.password) throw new ConfigError('SVC_API_URL must not hold a user name or password');
  if (url.search || url.hash) throw new ConfigError('SVC_API_URL must not hold a query string or fragment');
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
}

const JWT = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;
const API_KEY = /^key_[0-9a-z]{26}\.[A-Za-z0-9_-]{43}$/;

/** True when `token` has the shape of a JSON Web Token (three base64url parts, a JSON header). */
export function looksLikeJwt(token: string): boolean {
  if (!JWT.test(token)) return false;
  try {
    const header = JSON.parse(Buffer.from(token.split('.')[0]!, 'base64url').toString('utf8')) as unknown;
    return !!header && typeof header === 'object' && 'alg' in header;
  } catch {
    return false;
  }
}

/**
 * `SVC_TOKEN` holds an API key and only an API key. An access token (a JWT) expires in
 * minutes and cannot be refreshed from the environment, so it is refused with a message
 * that says what to do instead.
 */
export function parseApiKey(raw: string | undefined): string | undefined {
  const token = (raw ?? '').trim();
  if (!token) return undefined;
  if (/^(bearer|apikey)\s/i.test(token))
    throw new ConfigError('SVC_TOKEN must hold the API key alone, without "Bearer " or "ApiKey " in front');
  if (looksLikeJwt(token))
    throw new ConfigError(
      'SVC_TOKEN holds an access token (a JWT); it takes an API key only. ' +
        'Create one with `kg keys create <name>` (or POST /auth/api-keys), or unset SVC_TOKEN and run `kg login`.',
    );
  if (!API_KEY.test(token))
    throw new ConfigError('SVC_TOKEN is not an API key (expected key_<26 characters>.<43-character secret>)');
  return token;
}

/**
 * Where stored logins live: `KG_CONFIG_DIR` when set; otherwise `%APPDATA%\kg` on Windows,
 * `~/Library/Application Support/kg` on macOS, `$XDG_CONFIG_HOME/kg` (default `~/.config/kg`) elsewhere.
 */
export function configDirFrom(env: Env, platform: NodeJS.Platform = process.platform, home = homedir()): string {
  if (env['KG_CONFIG_DIR']) return path.resolve(env['KG_CONFIG_DIR']);
  if (platform === 'win32') return path.join(env['APPDATA'] || path.join(home, 'AppData', 'Roaming'), 'kg');
  if (platform === 'darwin') return path.join(home, 'Library', 'Application Support', 'kg');
  const xdg = env['XDG_CONFIG_HOME'];
  return path.join(xdg && path.isAbsolute(xdg) ? xdg : path.join(home, '.config'), 'kg');
}

/** Reads SVC_API_URL, SVC_TOKEN and the config directory once; throws ConfigError on bad values. */
export function readClientEnv(env: Env = process.env): ClientEnv {
  return {
    baseUrl: parseBaseUrl(env['SVC_API_URL']),
    apiKey: parseApiKey(env['SVC_TOKEN']),
    configDir: configDirFrom(env),
  };
}
