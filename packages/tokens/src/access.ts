import { jwtVerify, type JWTVerifyGetKey } from 'jose';

export const ACCESS_TOKEN_ISSUER = 'kg-auth';
export const ACCESS_TOKEN_AUDIENCE = 'kg-api';
export const ACCESS_TOKEN_TTL_SECONDS = 900;

export interface AccessClaims {
  tenantId: string;
  subject: string;
  tokenId: string;
  /** Absent in tokens of users without an e-mail address. */
  email?: string;
  /** Expiry (`exp`), in seconds since the epoch. */
  expiresAt: number;
  /** The sign-in session (refresh-token family, claim `sid`) the token was issued in; absent in older tokens. */
  sessionId?: string;
}

/** Verifies an access token (EdDSA, issued by the auth service) against its published keys. */
export async function verifyAccessToken(token: string, keys: JWTVerifyGetKey): Promise<AccessClaims> {
  const { payload } = await jwtVerify(token, keys, {
    issuer: ACCESS_TOKEN_ISSUER,
    audience: ACCESS_TOKEN_AUDIENCE,
    algorithms: ['EdDSA'],
    requiredClaims: ['sub', 'exp', 'iat', 'jti'],
  });
  const tenantId = payload['tnt'];
  if (typeof tenantId !== 'string' || typeof payload.sub !== 'string' || typeof payload.jti !== 'string') {
    throw new Error('access token lacks tenant or subject');
  }
  const email = typeof payload['email'] === 'string' ? payload['email'] : undefined;
  const sessionId = typeof payload['sid'] === 'string' ? payload['sid'] : undefined;
  return {
    tenantId,
    subject: payload.sub,
    tokenId: payload.jti,
    expiresAt: payload.exp!,
    ...(email ? { email } : {}),
    ...(sessionId ? { sessionId } : {}),
  };
}
