import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** 32 random bytes, base64url (43 characters): magic-link tokens, refresh and API key secrets. */
export const randomSecret = (): string => randomBytes(32).toString('base64url');

/** The shape of `randomSecret()`, to reject malformed credentials before any lookup. */
export const SECRET_PATTERN = /^[A-Za-z0-9_-]{43}$/;

/** sha256, hex: how magic-link tokens and refresh secrets are stored. */
export const sha256 = (value: string): string => createHash('sha256').update(value).digest('hex');

/** HMAC-SHA256 under the server-side pepper, hex: how API key secrets are stored. */
export const hmacSha256 = (pepper: string, value: string): string =>
  createHmac('sha256', pepper).update(value).digest('hex');

/** Constant-time comparison of two hex digests (crypto.timingSafeEqual). */
export function digestsEqual(a: string, b: string): boolean {
  const x = Buffer.from(a, 'hex');
  const y = Buffer.from(b, 'hex');
  return x.length === y.length && timingSafeEqual(x, y);
}

/** Splits `{id}.{secret}` at the first dot; null when there is no dot or either side is empty. */
export function splitCredential(raw: string): { id: string; secret: string } | null {
  const dot = raw.indexOf('.');
  if (dot <= 0 || dot === raw.length - 1) return null;
  return { id: raw.slice(0, dot), secret: raw.slice(dot + 1) };
}
