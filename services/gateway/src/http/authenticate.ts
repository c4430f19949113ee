import type { JWTVerifyGetKey } from 'jose';
import { AppError, unauthorized, type Identity } from '@kg/contracts';
import { KeysUnavailableError, verifyAccessToken } from '@kg/tokens';
import type { GatewayPeers } from '../peers';
import type { ApiKeyCache } from './api-key-cache';

/**
 * Establishes who a request acts for: `Authorization: Bearer <jwt>` (verified locally
 * against the auth service's published keys, cached) or `Authorization: ApiKey <id>.<secret>`
 * (verified by the auth service, then trusted for API_KEY_CACHE_TTL_SECONDS; a revocation
 * event drops it sooner: see ApiKeyCache).
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
        return {
          tenantId: claims.tenantId,
          subject: claims.subject,
          credential: { kind: 'jwt', id: claims.tokenId },
          email: claims.email ?? null,
        };
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
