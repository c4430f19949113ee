export type {
  CollectionOptions,
  PayloadValue,
  VectorFilter,
  VectorHit,
  VectorIndex,
  VectorPayload,
  VectorPoint,
  VectorQuery,
} from './port';
export { createMemoryVectorIndex, type MemoryVectorOptions } from './memory';
export { createQdrantVectorIndex, type QdrantVectorOptions } from './qdrant';
export { toPointId } from './point-id';
export {
  VECTORS_RETRY_AFTER_SECONDS,
  VectorCollectionMismatchError,
  VectorIndexUnavailableError,
  isVectorIndexUnavailable,
  type VectorIndexUnavailableReason,
} from './errors';
