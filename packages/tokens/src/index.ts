export {
  ACCESS_TOKEN_ISSUER,
  ACCESS_TOKEN_AUDIENCE,
  ACCESS_TOKEN_TTL_SECONDS,
  verifyAccessToken,
  type AccessClaims,
} from './access';
export { createInternalTokens, type InternalTokens, type InternalClaims } from './internal';
export { createJwksCache, KeysUnavailableError, type JwksCache } from './jwks-cache';
