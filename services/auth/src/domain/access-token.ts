import { randomUUID } from 'node:crypto';
import { SignJWT } from 'jose';
import { ACCESS_TOKEN_AUDIENCE, ACCESS_TOKEN_ISSUER, ACCESS_TOKEN_TTL_SECONDS } from '@kg/tokens';
import type { KeyMaterial } from '../keys/material';

/**
 * An access token of `ttlSeconds` (15 minutes unless ACCESS_TOKEN_TTL_SECONDS says otherwise):
 * EdDSA (Ed25519) JWT with iss/aud of @kg/tokens, `sub` the user, `tnt` the tenant, `email`
 * the user's address (when the user has one, so GET /auth/me answers without a lookup), `sid`
 * the sign-in session (the refresh-token family: the gateway ends that session's event streams
 * when it is revoked), a unique `jti`, and `kid` in the header so verifiers pick the key.
 */
export function signAccessToken(
  keys: KeyMaterial,
  user: { id: string; tenantId: string; email?: string | null },
  now: Date,
  ttlSeconds = ACCESS_TOKEN_TTL_SECONDS,
  sessionId?: string,
): Promise<string> {
  const iat = Math.floor(now.getTime() / 1000);
  return new SignJWT({
    tnt: user.tenantId,
    ...(user.email ? { email: user.email } : {}),
    ...(sessionId ? { sid: sessionId } : {}),
  })
    .setProtectedHeader({ alg: 'EdDSA', kid: keys.kid, typ: 'JWT' })
    .setIssuer(ACCESS_TOKEN_ISSUER)
    .setAudience(ACCESS_TOKEN_AUDIENCE)
    .setSubject(user.id)
    .setJti(randomUUID())
    .setIssuedAt(iat)
    .setExpirationTime(iat + ttlSeconds)
    .sign(keys.privateKey);
}

/** The public key set other services verify access tokens with. */
export const publicKeySet = (keys: KeyMaterial) => ({ keys: [{ ...keys.publicJwk }] });
