export type { Embedder, EmbedKind } from './port';
export { EmbeddingsError } from './port';
export { createEmbedder, type EmbeddingsConfig } from './create';
// The providers load on demand (onnxruntime-node only when the local one is chosen); import
// them directly from '@kg/embeddings/local' or '@kg/embeddings/openai'.
