import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { createEmbedder } from './create';
import { createLocalEmbedder, LOCAL_MODEL } from './local';
import type { Embedder } from './port';
import { ensureLocalModel } from './testing/model';

interface Reference {
  max_tokens: number;
  cases: { text: string; tokens: number; vector: number[] }[];
}
// Made by scripts/models/minilm-reference.py: the float32 weights through a numpy forward pass.
const reference = JSON.parse(
  readFileSync(new URL('./testing/minilm-reference.json', import.meta.url), 'utf8'),
) as Reference;

const dot = (a: ArrayLike<number>, b: ArrayLike<number>) => {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
};
const norm = (a: ArrayLike<number>) => Math.sqrt(dot(a, a));
const cosine = (a: ArrayLike<number>, b: ArrayLike<number>) => dot(a, b) / (norm(a) * norm(b));
/**
 * int8 weights cost a little. The model's weights are quantised per channel and its matrix
 * products run on int8 activations quantised per call (onnxruntime's integer kernels): every
 * fixed text of 4 tokens or more measured 0.991-0.998 against the float32 reference, the
 * one-character text (3 tokens with [CLS] and [SEP], where the noise is averaged over fewer
 * tokens) 0.980. The bars leave a little room under those. The search quality set measured the
 * same semantic R@10 as with float32 matrix products (docs/benchmarks.md).
 */
const floor = (tokens: number) => (tokens >= 4 ? 0.985 : 0.975);

describe('local embedder (all-MiniLM-L6-v2 int8 ONNX, integer kernels)', () => {
  let embedder: Embedder;
  beforeAll(async () => {
    ensureLocalModel();
    embedder = await createLocalEmbedder();
  }, 300_000);
  afterAll(() => embedder?.close());

  it('matches the reference forward pass (cosine >= 0.985) on the fixed texts, the truncated long one included', async () => {
    const texts = reference.cases.map((c) => c.text);
    const vectors = await embedder.embed(texts, 'passage');
    expect(vectors).toHaveLength(texts.length);
    vectors.forEach((v, i) => {
      const c = reference.cases[i]!;
      expect({ text: c.text, cosine: cosine(v, c.vector) >= floor(c.tokens) }).toEqual({ text: c.text, cosine: true });
    });
    expect(reference.cases.some((c) => c.tokens === reference.max_tokens)).toBe(true);
  });

  it('answers unit-length 384-dimensional vectors in input order, the same one text at a time or batched', async () => {
    expect(embedder.model).toBe(LOCAL_MODEL);
    expect(embedder.dimensions).toBe(384);
    const texts = ['a longer sentence about graphs and their weighted links', 'short', 'medium length text here'];
    const together = await embedder.embed(texts, 'query');
    for (const [i, text] of texts.entries()) {
      const [alone] = await embedder.embed([text], 'query');
      expect(alone!.length).toBe(384);
      expect(norm(alone!)).toBeCloseTo(1, 5);
      expect(cosine(alone!, together[i]!)).toBeGreaterThan(0.99999);
    }
    expect(await embedder.embed([], 'query')).toEqual([]);
  });

  it('ranks a paraphrase above an unrelated text', async () => {
    const [q, para, other] = await embedder.embed(
      ['how do I change my login secret', 'Resetting your password', 'Tomato soup recipe with basil'],
      'query',
    );
    expect(dot(q!, para!)).toBeGreaterThan(dot(q!, other!) + 0.2);
  });

  it('small length-sorted batches give the same vectors as one text at a time', async () => {
    const batched = await createLocalEmbedder({ batchSize: 4 });
    try {
      const texts = reference.cases.map((c) => c.text);
      const vectors = await batched.embed(texts, 'passage');
      vectors.forEach((v, i) => {
        const c = reference.cases[i]!;
        expect(cosine(v, c.vector)).toBeGreaterThanOrEqual(floor(c.tokens));
      });
    } finally {
      await batched.close();
    }
  });

  it('rejects after close, and a missing model names the fetch script', async () => {
    const other = await createLocalEmbedder();
    await other.close();
    await expect(other.embed(['x'], 'query')).rejects.toThrow(/closed/);
    await expect(createLocalEmbedder({ modelDir: '/nonexistent/model-dir' })).rejects.toThrow(/fetch-minilm\.sh/);
  });

  it('is what createEmbedder builds by default (in a worker thread), from EMBEDDINGS_MODEL_DIR when set', async () => {
    const made = await createEmbedder({ EMBEDDINGS_PROVIDER: 'local' });
    try {
      expect(made.model).toBe(LOCAL_MODEL);
      expect(made).toHaveProperty('threadsStarted', 1); // in a worker thread (thread.ts)
      const [v] = await made.embed([reference.cases[0]!.text], 'query');
      expect(cosine(v!, reference.cases[0]!.vector)).toBeGreaterThanOrEqual(floor(reference.cases[0]!.tokens));
    } finally {
      await made.close();
    }
    await expect(
      createEmbedder({ EMBEDDINGS_PROVIDER: 'local', EMBEDDINGS_MODEL_DIR: '/nonexistent/model-dir' }),
    ).rejects.toThrow(/\/nonexistent\/model-dir.*EMBEDDINGS_MODEL_DIR/);
  });
});
