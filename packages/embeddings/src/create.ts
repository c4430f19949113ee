import type { Embedder } from './port';

/** The embeddings fields of a service's config (packages/config `env.embeddings`). */
export interface EmbeddingsConfig {
  EMBEDDINGS_PROVIDER: 'local' | 'openai';
  EMBEDDINGS_BASE_URL?: string | undefined;
  EMBEDDINGS_MODEL?: string | undefined;
  EMBEDDINGS_API_KEY?: string | undefined;
  EMBEDDINGS_MODEL_DIR?: string | undefined;
  /** The local model's thread's nice value (Linux; default: as the service). */
  EMBEDDINGS_THREAD_NICE?: number | undefined;
}

/**
 * Builds the configured embedder: `local` loads the ONNX model in a worker thread of its own
 * (thread.ts; fetch it first with scripts/models/fetch-minilm.sh, `npm start` and `npm test`
 * do), `openai` talks to a server.
 * Resolves once the embedder can embed; rejects with an EmbeddingsError naming what is missing.
 */
export async function createEmbedder(config: EmbeddingsConfig): Promise<Embedder> {
  if (config.EMBEDDINGS_PROVIDER === 'openai') {
    const { createOpenAiEmbedder } = await import('./openai');
    return createOpenAiEmbedder({
      baseUrl: required(config.EMBEDDINGS_BASE_URL, 'EMBEDDINGS_BASE_URL'),
      model: required(config.EMBEDDINGS_MODEL, 'EMBEDDINGS_MODEL'),
      apiKey: config.EMBEDDINGS_API_KEY,
    });
  }
  const { createThreadedEmbedder } = await import('./thread');
  return createThreadedEmbedder({ modelDir: config.EMBEDDINGS_MODEL_DIR, nice: config.EMBEDDINGS_THREAD_NICE });
}

function required(value: string | undefined, name: string): string {
  if (!value) throw new Error(`${name} is required when EMBEDDINGS_PROVIDER=openai`);
  return value;
}
