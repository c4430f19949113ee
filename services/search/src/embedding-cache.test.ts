import { describe, expect, it } from 'vitest';
import type { EmbedKind, Embedder } from '@kg/embeddings';
import { createEmbeddingCache } from './embedding-cache';

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
    const [a] = await cache.embed(r.embedder, ['hello'], 'passage', 'tenant-a');
    const [b] = await cache.embed(r.embedder, ['hello'], 'query', 'tenant-a');
    expect(r.calls).toEqual([['hello']]);
    expect(Array.from(b!)).toEqual(Array.from(a!));
    expect(cache.stats()).toEqual({ hits: 1, misses: 1 });
  });

  it('embeds only the missing texts of a call, in one call, answering in input order', async () => {
    const r = recorder('m1', symmetric);
    const cache = createEmbeddingCache(10);
    await cache.embed(r.embedder, ['bb'], 'passage', 'tenant-a');
    const out = await cache.embed(r.embedder, ['a', 'bb', 'ccc', 'a'], 'passage', 'tenant-a');
    expect(r.calls).toEqual([['bb'], ['a', 'ccc']]);
    expect(out.map((v) => v[0])).toEqual([1, 2, 3, 1]);
  });

  it('keys on the model input: a query and a passage share a vector only when the model sees the same input', async () => {
    const prefixed = recorder('e5', (text, kind) => `${kind}: ${text}`);
    const cache = createEmbeddingCache(10);
    await cache.embed(prefixed.embedder, ['x'], 'query', 'tenant-a');
    await cache.embed(prefixed.embedder, ['x'], 'passage', 'tenant-a');
    expect(prefixed.calls).toEqual([['x'], ['x']]);
    // Without modelInput the kind is assumed to matter.
    const unknown = recorder('other');
    await cache.embed(unknown.embedder, ['x'], 'query', 'tenant-a');
    await cache.embed(unknown.embedder, ['x'], 'passage', 'tenant-a');
    await cache.embed(unknown.embedder, ['x'], 'passage', 'tenant-a');
    expect(unknown.calls).toEqual([['x'], ['x']]);
  });

  it('never answers a vector of another model', async () => {
    const cache = createEmbeddingCache(10);
    const m1 = recorder('m1', symmetric);
    const m2 = recorder('m2', symmetric);
    await cache.embed(m1.embedder, ['same text'], 'passage', 'tenant-a');
    await cache.embed(m2.embedder, ['same text'], 'passage', 'tenant-a');
    expect(m1.calls).toHaveLength(1);
    expect(m2.calls).toEqual([['same text']]);
  });

  it('keeps at most `max` vectors, dropping the least recently used', async () => {
    const r = recorder('m1', symmetric);
    const cache = createEmbeddingCache(2);
    await cache.embed(r.embedder, ['a'], 'passage', 'tenant-a');
    await cache.embed(r.embedder, ['b'], 'passage', 'tenant-a');
    await cache.embed(r.embedder, ['a'], 'passage', 'tenant-a'); // a is now the most recent
    await cache.embed(r.embedder, ['c'], 'passage', 'tenant-a'); // drops b
    expect(cache.size).toBe(2);
    await cache.embed(r.embedder, ['a'], 'passage', 'tenant-a');
    await cache.embed(r.embedder, ['b'], 'passage', 'tenant-a');
    expect(r.calls).toEqual([['a'], ['b'], ['c'], ['b']]);
  });

  it('shares one embedding in flight between concurrent requests for the same text', async () => {
    const r = recorder('m1', symmetric);
    const cache = createEmbeddingCache(10);
    r.hold();
    const first = cache.embed(r.embedder, ['node text'], 'passage', 'tenant-a');
    const second = cache.embed(r.embedder, ['node text', 'other'], 'query', 'tenant-a');
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
    const first = cache.embed(r.embedder, ['t'], 'passage', 'tenant-a');
    const second = cache.embed(r.embedder, ['t'], 'passage', 'tenant-a');
    r.release();
    await expect(first).rejects.toThrow('model down');
    await expect(second).rejects.toThrow('model down');
    expect(cache.size).toBe(0);
    const [v] = await cache.embed(r.embedder, ['t'], 'passage', 'tenant-a');
    expect(v![0]).toBe(1);
    expect(r.calls).toEqual([['t'], ['t']]);
  });

  it('never answers a tenant with a vector another tenant made: no timing tells A what B embedded', async () => {
    const r = recorder('m1', symmetric);
    const cache = createEmbeddingCache(10);
    await cache.embed(r.embedder, ['B’s private passage'], 'passage', 'tenant-b');
    await cache.embed(r.embedder, ['B’s private passage'], 'query', 'tenant-a');
    expect(r.calls).toEqual([['B’s private passage'], ['B’s private passage']]);
    expect(cache.stats()).toEqual({ hits: 0, misses: 2 });
    // Nor is B's embedding in flight shared with A; B's own second request still is.
    r.hold();
    const b = cache.embed(r.embedder, ['in flight'], 'passage', 'tenant-b');
    const a = cache.embed(r.embedder, ['in flight'], 'passage', 'tenant-a');
    const again = cache.embed(r.embedder, ['in flight'], 'passage', 'tenant-b');
    r.release();
    await Promise.all([a, b, again]);
    expect(r.calls.slice(2)).toEqual([['in flight'], ['in flight']]);
    expect(cache.stats()).toEqual({ hits: 1, misses: 4 });
  });

  it('answers copies: changing an answer leaves the kept vector alone', async () => {
    const r = recorder('m1', symmetric);
    const cache = createEmbeddingCache(10);
    const [a] = await cache.embed(r.embedder, ['abc'], 'passage', 'tenant-a');
    a![0] = 99;
    const [b] = await cache.embed(r.embedder, ['abc'], 'passage', 'tenant-a');
    expect(b![0]).toBe(3);
    expect(r.calls).toHaveLength(1);
  });
});
