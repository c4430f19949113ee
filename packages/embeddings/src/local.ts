import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { Tokenizer } from '@huggingface/tokenizers';
import { InferenceSession, Tensor } from 'onnxruntime-node';
import { EmbeddingsError, type EmbedKind, type Embedder } from './port';
import { meanPoolNormalised } from './pooling';

/** Where scripts/models/fetch-minilm.sh puts the model when EMBEDDINGS_MODEL_DIR is not set. */
export const DEFAULT_MODEL_DIR = fileURLToPath(new URL('../../../.tools/models/all-minilm-l6-v2', import.meta.url));
/**
 * The model id stored beside every vector this provider makes. `qint8`: weights quantised per
 * channel for onnxruntime's integer kernels (scripts/models/quantize-minilm.py); vectors stored
 * under the earlier `all-MiniLM-L6-v2-int8` are embedded again by the indexer (the id differs).
 */
export const LOCAL_MODEL = 'all-MiniLM-L6-v2-qint8';
const DIMENSIONS = 384;
/** The model's window (sentence-transformers' max_seq_length): longer texts are truncated. */
export const MAX_TOKENS = 256;
const SEP = 102;

export interface LocalEmbedderOptions {
  /** Holds model.onnx and tokenizer.json (default DEFAULT_MODEL_DIR). */
  modelDir?: string | undefined;
  /**
   * Texts run through the model this many at a time, sorted by length so padding stays small.
   * 1 (the default) measured fastest on 2 cores; larger batches also grow the process.
   */
  batchSize?: number;
  /** onnxruntime intra-op threads (default 1: the service shares its cores with the request path). */
  threads?: number;
}

/**
 * all-MiniLM-L6-v2 (int8 ONNX, integer kernels) run in-process: WordPiece tokens (truncated to 256 with
 * [CLS] and [SEP]), the BERT forward pass, then mean pooling over the attention mask and L2
 * normalisation, as sentence-transformers does. onnxruntime's memory arena is off: with it on
 * the process keeps the peak of every batch. Calls run one after another.
 */
export async function createLocalEmbedder(options: LocalEmbedderOptions = {}): Promise<Embedder> {
  const dir = options.modelDir ?? DEFAULT_MODEL_DIR;
  const batchSize = Math.max(1, options.batchSize ?? 1);
  let tokenizer: Tokenizer;
  let session: InferenceSession;
  try {
    const tokenizerJson = JSON.parse(await readFile(`${dir}/tokenizer.json`, 'utf8')) as object;
    tokenizer = new Tokenizer(tokenizerJson, { do_lower_case: true });
    session = await InferenceSession.create(`${dir}/model.onnx`, {
      enableCpuMemArena: false,
      intraOpNumThreads: options.threads ?? 1,
      interOpNumThreads: 1,
      graphOptimizationLevel: 'all',
    });
  } catch (err) {
    throw new EmbeddingsError(
      `local embedder: cannot load the model from ${dir} (run scripts/models/fetch-minilm.sh, or set EMBEDDINGS_MODEL_DIR): ${(err as Error).message}`,
      false,
      { cause: err },
    );
  }

  let closed = false;
  let queue: Promise<unknown> = Promise.resolve();
  const serial = <T>(work: () => Promise<T>): Promise<T> => {
    const run = queue.then(work, work);
    queue = run.catch(() => undefined);
    return run;
  };

  const tokenize = (text: string): number[] => {
    const ids = tokenizer.encode(text, { add_special_tokens: true }).ids;
    return ids.length <= MAX_TOKENS ? ids : [...ids.slice(0, MAX_TOKENS - 1), SEP];
  };

  const forward = async (batch: number[][]): Promise<Float32Array[]> => {
    const width = Math.max(...batch.map((ids) => ids.length));
    const n = batch.length;
    const ids = new BigInt64Array(n * width);
    const mask = new BigInt64Array(n * width);
    batch.forEach((row, r) =>
      row.forEach((id, c) => {
        ids[r * width + c] = BigInt(id);
        mask[r * width + c] = 1n;
      }),
    );
    const feeds: Record<string, Tensor> = {
      input_ids: new Tensor('int64', ids, [n, width]),
      attention_mask: new Tensor('int64', mask, [n, width]),
    };
    if (session.inputNames.includes('token_type_ids')) {
      feeds.token_type_ids = new Tensor('int64', new BigInt64Array(n * width), [n, width]);
    }
    const out = await session.run(feeds);
    const hidden = out.last_hidden_state ?? out[session.outputNames[0]!];
    if (!hidden) throw new EmbeddingsError('local embedder: the model returned no hidden states', false);
    const data = hidden.data as Float32Array;
    const vectors = batch.map((row, r) =>
      meanPoolNormalised(data.subarray(r * width * DIMENSIONS, (r + 1) * width * DIMENSIONS), row.length, DIMENSIONS),
    );
    for (const tensor of Object.values(out)) tensor.dispose();
    return vectors;
  };

  return {
    model: LOCAL_MODEL,
    dimensions: DIMENSIONS,
    // MiniLM was trained symmetric: queries and passages are embedded the same way.
    modelInput: (text: string) => text,
    embed(texts: string[], _kind: EmbedKind): Promise<Float32Array[]> {
      if (closed) return Promise.reject(new EmbeddingsError('local embedder: closed', false));
      if (texts.length === 0) return Promise.resolve([]);
      return serial(async () => {
        const tokens = texts.map((text, index) => ({ index, ids: tokenize(text) }));
        tokens.sort((a, b) => a.ids.length - b.ids.length);
        const result = new Array<Float32Array>(texts.length);
        for (let i = 0; i < tokens.length; i += batchSize) {
          const slice = tokens.slice(i, i + batchSize);
          const vectors = await forward(slice.map((t) => t.ids));
          slice.forEach((t, k) => (result[t.index] = vectors[k]!));
        }
        return result;
      });
    },
    async close(): Promise<void> {
      if (closed) return;
      closed = true;
      await serial(() => session.release());
    },
  };
}
