/** What a text is for: e5-style models embed questions and documents differently; MiniLM ignores it. */
export type EmbedKind = 'query' | 'passage';

/**
 * Sentence-embedding port used by the search service. Vectors are L2-normalised (cosine =
 * dot product), one per input text, in input order, each `dimensions` long.
 * Providers: `local` (all-MiniLM-L6-v2 int8 ONNX in-process, the default) and `openai`
 * (an OpenAI-compatible `/v1/embeddings` server).
 */
export interface Embedder {
  /** Identifies the model that made a vector (stored beside it; a change means re-embedding). */
  readonly model: string;
  readonly dimensions: number;
  /**
   * The model's input for a text of a kind, or a string that is equal exactly when the inputs
   * are (embedding caches key on it). Omitted: the kind is assumed to change the input.
   */
  modelInput?(text: string, kind: EmbedKind): string;
  /** An empty list answers an empty list. Texts longer than the model's window are truncated. */
  embed(texts: string[], kind: EmbedKind): Promise<Float32Array[]>;
  /** Frees the model or the HTTP agent; `embed` after `close` rejects. */
  close(): Promise<void>;
}

/** A provider failed: the message names the provider and the cause, never a key or a text. */
export class EmbeddingsError extends Error {
  override readonly name = 'EmbeddingsError';
  constructor(
    message: string,
    /** Whether trying again later may succeed (timeouts, 429, 5xx). */
    readonly retryable: boolean,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}
