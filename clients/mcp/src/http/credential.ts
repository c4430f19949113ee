/** A caller's credential as the API takes it in its Authorization header. */
export interface Credential {
  /** `Bearer <jwt>` or `ApiKey <key_id>.<secret>`, ready to pass through. */
  header: string;
  kind: 'bearer' | 'api_key';
  /** When a bearer token says it expires (its `exp`, unverified: only to bound caching). */
  expiresAt: number | null;
}

const API_KEY = /^key_[0-9a-z]{26}\.[A-Za-z0-9_-]+$/;

function jwtExpiry(token: string): number | null {
  const payload = token.split('.')[1];
  if (!payload) return null;
  try {
    const exp = (JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as { exp?: unknown }).exp;
    return typeof exp === 'number' ? exp * 1000 : null;
  } catch {
    return null;
  }
}

/**
 * Reads an MCP request's Authorization header: `Bearer <access token>`, `ApiKey <key>`, or
 * `Bearer <key>` (many MCP hosts only let a person set a bearer token, so an API key sent
 * that way is passed to the API as `ApiKey`). Null when absent or malformed.
 */
export function parseAuthorization(value: string | string[] | undefined): Credential | null {
  if (typeof value !== 'string') return null;
  const match = /^(Bearer|ApiKey)\s+(\S+)$/i.exec(value.trim());
  if (!match) return null;
  const scheme = match[1]!.toLowerCase();
  const token = match[2]!;
  if (token.length > 4096) return null;
  if (scheme === 'apikey' || API_KEY.test(token))
    return { header: `ApiKey ${token}`, kind: 'api_key', expiresAt: null };
  return { header: `Bearer ${token}`, kind: 'bearer', expiresAt: jwtExpiry(token) };
}
