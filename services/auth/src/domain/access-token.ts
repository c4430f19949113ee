import { SignJWT } from 'jose';
import { ACCESS_TOKEN_AUDIENCE, ACCESS_TOKEN_ISSUER, ACCESS_TOKEN_TTL_SECONDS } from '@kg/tokens';
import { newId } from '@kg/db';
import type { KeyMaterial } from './keys';

/** A 15-minute EdDSA access token carrying the tenant (`tnt`) and the user (`sub`). */
export function signAccessToken(keys: KeyMaterial, user: { id: string; tenantId: string }, now: Date): Promise<string> {
  const iat = Math.floor(now.getTime() / 1000);
  return new SignJWT({ tnt: user.tenantId })
    .setProtectedHeader({ alg: 'EdDSA', kid: keys.kid, typ: 'JWT' })
    .setIssuer(ACCESS_TOKEN_ISSUER)
    .setAudience(ACCESS_TOKEN_AUDIENCE)
    .setSubject(user.id)
    .setJti(newId('refreshToken').replace(/^rtk_/, 'jti_'))
    .setIssuedAt(iat)
    .setExpirationTime(iat + ACCESS_TOKEN_TTL_SECONDS)
    .sign(keys.privateKey);
}
