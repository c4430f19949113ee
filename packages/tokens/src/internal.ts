import { SignJWT, jwtVerify } from 'jose';
import { Identity } from '@kg/contracts';

export interface InternalClaims {
  caller: string;
  identity: Identity | null;
}

export interface InternalTokens {
  sign(caller: string, audience: string, identity: Identity | null): Promise<string>;
  verify(token: string, audience: string): Promise<InternalClaims>;
}

const ISSUER_PREFIX = 'kg-internal:';

/**
 * Short-lived (60 s), audience-bound tokens that carry the caller service and the
 * identity of the person a call acts for between services. HS256 under a shared
 * secret: only services hold it, and public traffic never reaches them directly.
 */
export function createInternalTokens(secret: string, ttlSeconds = 60): InternalTokens {
  const key = new TextEncoder().encode(secret);
  return {
    async sign(caller, audience, identity) {
      return new SignJWT({ idn: identity })
        .setProtectedHeader({ alg: 'HS256' })
        .setIssuer(`${ISSUER_PREFIX}${caller}`)
        .setAudience(audience)
        .setIssuedAt()
        .setExpirationTime(`${ttlSeconds}s`)
        .sign(key);
    },
    async verify(token, audience) {
      const { payload } = await jwtVerify(token, key, {
        audience,
        algorithms: ['HS256'],
        maxTokenAge: `${ttlSeconds + 5}s`,
      });
      const iss = payload.iss ?? '';
      if (!iss.startsWith(ISSUER_PREFIX)) throw new Error('not an internal token');
      const identity = payload['idn'] == null ? null : Identity.parse(payload['idn']);
      return { caller: iss.slice(ISSUER_PREFIX.length), identity };
    },
  };
}
