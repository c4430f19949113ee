import { createLocalJWKSet, type JSONWebKeySet, type JWTVerifyGetKey } from 'jose';

/** The key set could not be fetched: say "try again" (503), not "bad token" (401). */
export class KeysUnavailableError extends Error {
  constructor(cause: unknown) {
    super('The signing keys could not be fetched', { cause });
    this.name = 'KeysUnavailableError';
  }
}

export interface JwksCache {
  /** A key resolver for jose that refetches the key set when it meets an unknown key id. */
  resolver: JWTVerifyGetKey;
}

/**
 * Caches the auth service's public keys, fetched through whatever transport the
 * caller has (in-process or tRPC over HTTP). Refetches at most every `minRefetchMs`.
 */
export function createJwksCache(fetchKeys: () => Promise<JSONWebKeySet>, minRefetchMs = 30_000): JwksCache {
  let local: JWTVerifyGetKey | null = null;
  let fetchedAt = 0;
  let inflight: Promise<JWTVerifyGetKey> | null = null;

  const refresh = (): Promise<JWTVerifyGetKey> => {
    inflight ??= fetchKeys()
      .then((jwks) => {
        local = createLocalJWKSet(jwks);
        fetchedAt = Date.now();
        return local;
      })
      .catch((err: unknown) => {
        throw new KeysUnavailableError(err);
      })
      .finally(() => {
        inflight = null;
      });
    return inflight;
  };

  const resolver: JWTVerifyGetKey = async (header, token) => {
    const current = local ?? (await refresh());
    try {
      return await current(header, token);
    } catch (err) {
      if (Date.now() - fetchedAt < minRefetchMs) throw err;
      return (await refresh())(header, token);
    }
  };
  return { resolver };
}
