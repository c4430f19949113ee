import { describe, expect, it } from 'vitest';
import type { EmbedKind, Embedder } from '@kg/embeddings';
import { createEmbeddingCache, withEmbeddingCache } from './embedding-cache';

/** An embedder that records every call; `gate` holds calls until released; `fail` makes the next call reject. */
function recorder(model = 'm1', modelInput?: (text: string, kind: EmbedKind) => string) {
  const calls: string[][] = [];
  let gate: Promise<void> | null = null;
  let release = () => {};
  let fail = false;
  const embedder: Embedder = {
    model,
    dimensions: 2,
    ...(modelInput ? { modelInput } : {}),
    async embed(texts) {
      calls.push(texts);
      if (gate) await gate;
      if (fail) {
        fail = false;
        throw new Error('model down');
      }
      return texts.map((t) => Float32Array.of(t.length, calls.length));
    },
    async close() {},
  };
  return {
    embedder,
    calls,
    hold: () => {
      gate = new Promise((r) => (release = r));
    },
    release: () => {
      gate = null;
      release();
    },
    failNext: () => {
      fail = true;
    },
  };
}
const symmetric = (text: string) => text;

describe('embedding cache', () => {
  it('embeds a text once: a second request is a hit with the same vector', async () => {
    const r = recorder('m1', symmetric);
    const cache = createEmbeddingCache(10);
    const [a] = await cache.embed(r.embedder, ['hello'], 'passage');
    const [b] = await cache.embed(r.embedder, ['hello'], 'query');
    expect(r.calls).toEqual([['hello']]);
    expect(Array.from(b!)).toEqual(Array.from(a!));
    expect(cache.stats()).toEqual({ hits: 1, misses: 1 });
  });

  it('embeds only the missing texts of a call, in one call, answering in input order', async () => {
    const r = recorder('m1', symmetric);
    const cache = createEmbeddingCache(10);
    await cache.embed(r.embedder, ['bb'], 'passage');
    const out = await cache.embed(r.embedder, ['a', 'bb', 'ccc', 'a'], 'passage');
    expect(r.calls).toEqual([['bb'], ['a', 'ccc']]);
    expect(out.map((v) => v[0])).toEqual([1, 2, 3, 1]);
  });

  it('keys on the model input: a query and a passage share a vector only when the model sees the same input', async () => {
    const prefixed = recorder('e5', (text, kind) => `${kind}: ${text}`);
    const cache = createEmbeddingCache(10);
    await cache.embed(prefixed.embedder, ['x'], 'query');
    await cache.embed(prefixed.embedder, ['x'], 'passage');
    expect(prefixed.calls).toEqual([['x'], ['x']]);
    // Without modelInput the kind is assumed to matter.
    const unknown = recorder('other');
    await cache.embed(unknown.embedder, ['x'], 'query');
    await cache.embed(unknown.embedder, ['x'], 'passage');
    await cache.embed(unknown.embedder, ['x'], 'passage');
    expect(unknown.calls).toEqual([['x'], ['x']]);
  });

  it('never answers a vector of another model', async () => {
    const cache = createEmbeddingCache(10);
    const m1 = recorder('m1', symmetric);
    const m2 = recorder('m2', symmetric);
    await cache.embed(m1.embedder, ['same text'], 'passage');
    await cache.embed(m2.embedder, ['same text'], 'passage');
    expect(m1.calls).toHaveLength(1);
    expect(m2.calls).toEqual([['same text']]);
  });

  it('keeps at most `max` vectors, dropping the least recently used', async () => {
    const r = recorder('m1', symmetric);
    const cache = createEmbeddingCache(2);
    await cache.embed(r.embedder, ['a'], 'passage');
    await cache.embed(r.embedder, ['b'], 'passage');
    await cache.embed(r.embedder, ['a'], 'passage'); // a is now the most recent
    await cache.embed(r.embedder, ['c'], 'passage'); // drops b
    expect(cache.size).toBe(2);
    await cache.embed(r.embedder, ['a'], 'passage');
    await cache.embed(r.embedder, ['b'], 'passage');
    expect(r.calls).toEqual([['a'], ['b'], ['c'], ['b']]);
  });

  it('shares one embedding in flight between concurrent requests for the same text', async () => {
    const r = recorder('m1', symmetric);
    const cache = createEmbeddingCache(10);
    r.hold();
    const first = cache.embed(r.embedder, ['node text'], 'passage');
    const second = cache.embed(r.embedder, ['node text', 'other'], 'query');
    r.release();
    const [[a], [b, c]] = await Promise.all([first, second]);
    expect(r.calls).toEqual([['node text'], ['other']]);
    expect(Array.from(b!)).toEqual(Array.from(a!));
    expect(c![0]).toBe(5);
  });

  it('does not keep a failure: every waiter gets it and the next request embeds again', async () => {
    const r = recorder('m1', symmetric);
    const cache = createEmbeddingCache(10);
    r.hold();
    r.failNext();
    const first = cache.embed(r.embedder, ['t'], 'passage');
    const second = cache.embed(r.embedder, ['t'], 'passage');
    r.release();
    await expect(first).rejects.toThrow('model down');
    await expect(second).rejects.toThrow('model down');
    expect(cache.size).toBe(0);
    const [v] = await cache.embed(r.embedder, ['t'], 'passage');
    expect(v![0]).toBe(1);
    expect(r.calls).toEqual([['t'], ['t']]);
  });

  it('answers copies: changing an answer leaves the kept vector alone', async () => {
    const r = recorder('m1', symmetric);
    const wrapped = withEmbeddingCache(r.embedder, createEmbeddingCache(10));
    const [a] = await wrapped.embed(['abc'], 'passage');
    a![0] = 99;
    const [b] = await wrapped.embed(['abc'], 'passage');
    expect(b![0]).toBe(3);
    expect(wrapped.model).toBe('m1');
    expect(wrapped.dimensions).toBe(2);
    expect(r.calls).toHaveLength(1);
  });
});
