export type {
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
