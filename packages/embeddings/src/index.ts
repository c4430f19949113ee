export type { Embedder, EmbedKind } from './port';
export { EmbeddingsError } from './port';
