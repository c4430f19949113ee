export { createKgClient, ok, problemToError } from './client.ts';
export type {
  KgClient,
  Schemas,
  Node,
  NodePage,
  ParaItem,
  Capture,
  ApiKey,
  ApiKeyCreated,
  SeedView,
  NeighborsView,
  Problem,
} from './client.ts';
export type { paths, components } from './openapi.ts';
export { Session, type SessionOptions, type TokenPair, type RequestFactory } from './session.ts';
export {
  readClientEnv,
  parseApiKey,
  parseBaseUrl,
  configDirFrom,
  looksLikeJwt,
  DEFAULT_API_URL,
  type ClientEnv,
} from './config.ts';
export { ProfileStore, type StoredLogin } from './profile-store.ts';
export { withFileLock } from './file-lock.ts';
export {
  ApiError,
  AuthRequiredError,
  ConfigError,
  KgError,
  NetworkError,
  apiErrorFrom,
  type FieldError,
} from './errors.ts';
export { openEvents, parseEventStream, type ServerEvent } from './events.ts';
export {
  uploadCapture,
  uploadImport,
  type Import,
  type ImportUploadOptions,
  type UploadOptions,
  type UploadProgress,
} from './upload.ts';
export { decodeJwtClaims } from './jwt.ts';
