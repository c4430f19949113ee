export {
  ACCESS_TOKEN_ISSUER,
  ACCESS_TOKEN_AUDIENCE,
  ACCESS_TOKEN_TTL_SECONDS,
  verifyAccessToken,
  type AccessClaims,
} from './access';
export {
  INTERNAL_CLOCK_TOLERANCE_SECONDS,
  INTERNAL_TOKEN_TTL_SECONDS,
  InternalTokenError,
  createInternalTokenSigner,
  createInternalTokens,
  createInternalTokenVerifier,
  generateInternalKeyPair,
  type InternalClaims,
  type InternalTokenSigner,
  type InternalTokenVerifier,
} from './internal';
export { createJwksCache, KeysUnavailableError, type JwksCache } from './jwks-cache';
