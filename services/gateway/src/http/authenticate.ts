import type { JWTVerifyGetKey } from 'jose';
import { AppError, unauthorized, type Identity } from '@kg/contracts';
import { KeysUnavailableError, verifyAccessToken } from '@kg/tokens';
import type { GatewayPeers } from '../peers';
import type { ApiKeyCache } from './api-key-cache';

/** What ends a credential besides a revocation: when it expires, and the sign-in session it belongs to. */
export interface CredentialTerms {
  /** Epoch ms of the access token's expiry; null: an API key (keys do not expire, they are revoked). */
  expiresAt: number | null;
  /** The sign-in session (refresh-token family, claim `sid`) of an access token; null: an API key or an older token. */
  sessionId: string | null;
}

const terms = new WeakMap<Identity, CredentialTerms>();
const NO_TERMS: CredentialTerms = { expiresAt: null, sessionId: null };

/** The terms of the credential an identity was authenticated with (by this module's authenticator). */
export const credentialTerms = (identity: Identity): CredentialTerms => terms.get(identity) ?? NO_TERMS;

/**
 * Establishes who a request acts for: `Authorization: Bearer <jwt>` (verified locally
 * against the auth service's published keys, cached) or `Authorization: ApiKey <id>.<secret>`
 * (verified by the auth service, then trusted for API_KEY_CACHE_TTL_SECONDS; a revocation
 * event drops it sooner: see ApiKeyCache).
 * The identity's `credentialTerms` (expiry, session) end GET /events streams with their credential.
 * When the signing keys cannot be fetched the answer is 503 (try again), not 401: the
 * token may well be good, and a 401 would send the client to sign in again for nothing.
 */
export function createAuthenticator(peers: GatewayPeers, keys: JWTVerifyGetKey, apiKeys: ApiKeyCache) {
  const verifyRemote = (key: string) => peers.auth.as(null).apiKeys.verify({ key });
  return async function authenticate(header: string | undefined): Promise<Identity> {
    if (!header) throw unauthorized('Authentication required: send Authorization: Bearer <token> or ApiKey <key>');
    const match = /^(Bearer|ApiKey)\s+(\S+)$/i.exec(header.trim());
    if (!match) throw unauthorized('Malformed Authorization header');
    const scheme = match[1]!.toLowerCase();
    const credential = match[2]!;
    if (scheme === 'bearer') {
      try {
        const claims = await verifyAccessToken(credential, keys);
        const identity: Identity = {
          tenantId: claims.tenantId,
          subject: claims.subject,
          credential: { kind: 'jwt', id: claims.tokenId },
          email: claims.email ?? null,
        };
        terms.set(identity, { expiresAt: claims.expiresAt * 1000, sessionId: claims.sessionId ?? null });
        return identity;
      } catch (err) {
        if (err instanceof KeysUnavailableError)
          throw new AppError('unavailable', 'Access tokens cannot be verified right now; try again shortly', {
            retryAfterSeconds: 5,
          });
        throw unauthorized('Invalid or expired access token');
      }
    }
    if (credential.length > 200) throw unauthorized('Invalid API key');
    return apiKeys.verify(credential, verifyRemote);
  };
}
