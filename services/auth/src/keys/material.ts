import { calculateJwkThumbprint, importJWK, type JWK } from 'jose';

type SigningKey = Awaited<ReturnType<typeof importJWK>>;

/** The auth service's secrets: the Ed25519 key that signs access tokens, and the API key pepper. */
export interface KeyMaterial {
  /** Key id, in every token's header and in the published JWKS. */
  readonly kid: string;
  readonly privateKey: SigningKey;
  /** The public half, as published by `tokens.jwks` (kty, crv, x, kid, alg, use). */
  readonly publicJwk: JWK;
  readonly pepper: string;
}

/** Minimum pepper length, as the config demands of API_KEY_PEPPER. */
export const MIN_PEPPER_LENGTH = 32;

/** Builds key material from a private Ed25519 JWK. Error messages never include the key. */
export async function keyMaterialFromJwk(jwk: JWK, pepper: string): Promise<KeyMaterial> {
  if (jwk.kty !== 'OKP' || jwk.crv !== 'Ed25519' || typeof jwk.d !== 'string' || typeof jwk.x !== 'string')
    throw new Error('the signing key must be a private Ed25519 JWK (kty OKP, crv Ed25519, with d and x)');
  if (jwk.alg !== undefined && jwk.alg !== 'EdDSA' && jwk.alg !== 'Ed25519')
    throw new Error('the signing key must be an EdDSA key');
  if (pepper.length < MIN_PEPPER_LENGTH) throw new Error(`the API key pepper needs ${MIN_PEPPER_LENGTH}+ characters`);
  const publicPart: JWK = { kty: 'OKP', crv: 'Ed25519', x: jwk.x };
  const kid = jwk.kid ?? (await calculateJwkThumbprint(publicPart));
  const privateKey = await importJWK({ kty: 'OKP', crv: 'Ed25519', x: jwk.x, d: jwk.d }, 'EdDSA');
  return { kid, privateKey, publicJwk: { ...publicPart, kid, alg: 'EdDSA', use: 'sig' }, pepper };
}

/**
 * Distributed mode: the key comes from AUTH_SIGNING_KEY (a private JWK as JSON) and the
 * pepper from API_KEY_PEPPER. A malformed key fails without echoing any of its text.
 */
export async function keyMaterialFromSecrets(signingKeyJson: string, pepper: string): Promise<KeyMaterial> {
  let jwk: unknown;
  try {
    jwk = JSON.parse(signingKeyJson);
  } catch {
    throw new Error('AUTH_SIGNING_KEY is not valid JSON (expected a private Ed25519 JWK)');
  }
  if (typeof jwk !== 'object' || jwk === null) throw new Error('AUTH_SIGNING_KEY must be a JSON object (a JWK)');
  return keyMaterialFromJwk(jwk as JWK, pepper);
}
