import { randomUUID } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { SignJWT, decodeJwt, exportJWK, generateKeyPair, importJWK, jwtVerify, type JWK } from 'jose';
import { Identity } from '@kg/contracts';

export interface InternalClaims {
  /** The service that signed the token (its issuer), proven by its own key. */
  caller: string;
  identity: Identity | null;
}

/** Signs the tokens one service sends with its calls: it can only ever speak as itself. */
export interface InternalTokenSigner {
  readonly service: string;
  sign(audience: string, identity: Identity | null): Promise<string>;
}

/** Checks tokens addressed to one service with the public keys of the services that may send them. */
export interface InternalTokenVerifier {
  verify(token: string, audience: string): Promise<InternalClaims>;
}

export const INTERNAL_TOKEN_TTL_SECONDS = 60;
/** Clock skew tolerated between services, on `exp`, `iat` and `nbf`. */
export const INTERNAL_CLOCK_TOLERANCE_SECONDS = 5;
const ISSUER_PREFIX = 'kg-internal:';
/** Tokens a signer reuses and a verifier remembers, at most (oldest dropped first). */
const MAX_CACHED_TOKENS = 10_000;
const ALG = 'EdDSA';
type VerifyKey = Awaited<ReturnType<typeof importJWK>>;

/** Raised for any token that does not verify; says why without echoing the token or any key. */
export class InternalTokenError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InternalTokenError';
  }
}

const identityKey = (i: Identity) => `${i.tenantId} ${i.subject} ${i.credential.kind} ${i.credential.id}`;

/**
 * The signer of one service: short-lived (60 s), audience-bound EdDSA tokens with a random
 * `jti`, issued as `kg-internal:<service>` under the service's own private Ed25519 key.
 */
export async function createInternalTokenSigner(
  service: string,
  privateJwk: JWK,
  ttlSeconds = INTERNAL_TOKEN_TTL_SECONDS,
): Promise<InternalTokenSigner> {
  if (!privateJwk.d) throw new InternalTokenError(`the signing key of ${service} is not a private key`);
  const key = await importJWK({ ...privateJwk, alg: ALG }, ALG).catch(() => {
    throw new InternalTokenError(`the signing key of ${service} is not a valid Ed25519 private key`);
  });
  const mint = (audience: string, identity: Identity | null) =>
    // The e-mail stays at the gateway (GET /auth/me): services act on tenant and subject only.
    new SignJWT({
      idn: identity && { tenantId: identity.tenantId, subject: identity.subject, credential: identity.credential },
    })
      .setProtectedHeader({ alg: ALG, typ: 'JWT' })
      .setIssuer(`${ISSUER_PREFIX}${service}`)
      .setAudience(audience)
      .setJti(randomUUID())
      .setIssuedAt()
      .setExpirationTime(`${ttlSeconds}s`)
      .sign(key);
  // A token is reused for the same audience and identity during the first half of its
  // lifetime (so a callee always gets one with at least half its life left): one signature per
  // person and peer every 30 s, not one per call.
  const reuseMs = (ttlSeconds * 1000) / 2;
  const minted = new LRUCache<string, { token: Promise<string>; from: number; until: number }>({
    max: MAX_CACHED_TOKENS,
  });
  return {
    service,
    sign(audience, identity) {
      const cacheKey = `${audience}\n${identity ? identityKey(identity) : ''}`;
      const now = Date.now();
      const hit = minted.get(cacheKey);
      if (hit && hit.from <= now && now < hit.until) return hit.token;
      const token = mint(audience, identity);
      minted.set(cacheKey, { token, from: now, until: now + reuseMs });
      token.catch(() => {
        if (minted.peek(cacheKey)?.token === token) minted.delete(cacheKey);
      });
      return token;
    },
  };
}

/**
 * The verifier: holds the public key(s) of each service, by name, and checks a token with
 * the keys of the service its issuer names, so a service can only speak as itself. A service
 * may have several keys at once (rotation: publish the new public key, then switch).
 */
export async function createInternalTokenVerifier(
  publicKeys: Record<string, JWK | JWK[]>,
  options: { ttlSeconds?: number; clockToleranceSeconds?: number } = {},
): Promise<InternalTokenVerifier> {
  const ttl = options.ttlSeconds ?? INTERNAL_TOKEN_TTL_SECONDS;
  const tolerance = options.clockToleranceSeconds ?? INTERNAL_CLOCK_TOLERANCE_SECONDS;
  const keysOf = new Map<string, VerifyKey[]>();
  for (const [service, value] of Object.entries(publicKeys)) {
    const keys: VerifyKey[] = [];
    // Imported once now: a malformed key stops the process at start-up, not at the first call.
    for (const { d: _private, ...jwk } of Array.isArray(value) ? value : [value])
      keys.push(
        await importJWK({ ...jwk, alg: ALG }, ALG).catch(() => {
          throw new InternalTokenError(`the public key of ${service} is not a valid Ed25519 public key`);
        }),
      );
    keysOf.set(service, keys);
  }
  const checks = {
    algorithms: [ALG],
    clockTolerance: tolerance,
    maxTokenAge: ttl,
    requiredClaims: ['iss', 'aud', 'exp', 'iat', 'jti'],
  };
  // Claims of tokens that verified, until the moment they would stop verifying: a caller
  // reuses its token for 30 s, so the signature is checked once, not on every call.
  const verified = new LRUCache<string, { claims: InternalClaims; until: number }>({ max: MAX_CACHED_TOKENS });
  return {
    async verify(token, audience) {
      const cacheKey = `${audience}\n${token}`;
      const hit = verified.get(cacheKey);
      if (hit && hit.until > Date.now()) return hit.claims;
      const checked = await verifyOnce(token, audience);
      verified.set(cacheKey, checked);
      return checked.claims;
    },
  };

  /** The token's claims, and the moment they stop verifying (its expiry or maximum age, plus the tolerance). */
  async function verifyOnce(token: string, audience: string): Promise<{ claims: InternalClaims; until: number }> {
    let issuer: string;
    try {
      issuer = decodeJwt(token).iss ?? '';
    } catch {
      throw new InternalTokenError('not a JWT');
    }
    if (!issuer.startsWith(ISSUER_PREFIX)) throw new InternalTokenError('not an internal token');
    const caller = issuer.slice(ISSUER_PREFIX.length);
    const keys = keysOf.get(caller);
    if (!keys) throw new InternalTokenError('issued by an unknown service');
    let failure = 'invalid';
    for (const key of keys) {
      try {
        const { payload } = await jwtVerify(token, key, { ...checks, issuer, audience });
        const identity = payload['idn'] == null ? null : Identity.parse(payload['idn']);
        // jwtVerify required both claims; the token verifies until its expiry or its maximum age.
        const until = (Math.min(payload.exp!, payload.iat! + ttl) + tolerance) * 1000;
        return { claims: { caller, identity }, until };
      } catch (err) {
        failure = (err as { code?: string }).code ?? failure;
        // Only a signature that fails may verify under the service's next key (rotation).
        if (failure !== 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED') break;
      }
    }
    throw new InternalTokenError(`rejected: ${failure}`);
  }
}

/** A fresh Ed25519 key pair for one service, as JWKs (private with `d`, public without). */
export async function generateInternalKeyPair(): Promise<{ privateJwk: JWK; publicJwk: JWK }> {
  const { privateKey, publicKey } = await generateKeyPair(ALG, { crv: 'Ed25519', extractable: true });
  return {
    privateJwk: { ...(await exportJWK(privateKey)), alg: ALG },
    publicJwk: { ...(await exportJWK(publicKey)), alg: ALG },
  };
}

/** A service's two halves: its signer (its own private key) and its verifier (the public keys of the services). */
export async function createInternalTokens(
  service: string,
  signingKey: JWK,
  publicKeys: Record<string, JWK | JWK[]>,
): Promise<{ signer: InternalTokenSigner; verifier: InternalTokenVerifier }> {
  return {
    signer: await createInternalTokenSigner(service, signingKey),
    verifier: await createInternalTokenVerifier(publicKeys),
  };
}
