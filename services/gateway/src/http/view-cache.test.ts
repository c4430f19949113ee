import { Registry } from 'prom-client';
import { describe, expect, it, vi } from 'vitest';
import { createMemoryKv, createViewVersions } from '@kg/kv';
import type { JsonAnswer } from '@kg/trpc';
import { ViewCache } from './view-cache';

const answer = (text: string) => text as JsonAnswer;

function setup(opts: ConstructorParameters<typeof ViewCache>[1] = { maxBytes: 1024 * 1024, maxAgeSeconds: 60 }) {
  const kv = createMemoryKv();
  const versions = createViewVersions(kv);
  const writer = createViewVersions(kv); // another process's view of the same tokens (the graph service)
  const inner = new ViewCache(versions, opts);
  // Answers as text: a kept view comes back as its UTF-8 bytes.
  const cache = {
    view: async (tenant: string, key: string, load: () => Promise<JsonAnswer>) => {
      const { json, result } = await inner.view(tenant, 'test', key, load);
      return { json: Buffer.isBuffer(json) ? json.toString('utf8') : json, result };
    },
    get size() {
      return inner.size;
    },
  };
  return { kv, versions, writer, cache };
}

/** Asks for a view twice: the second ask keeps it. */
async function keep(
  cache: ReturnType<typeof setup>['cache'],
  tenant: string,
  key: string,
  load: () => Promise<JsonAnswer>,
) {
  await cache.view(tenant, key, load);
  return cache.view(tenant, key, load);
}

describe('view cache', () => {
  it('keeps a view the second time it is asked, and serves it until a write of the tenant changes its token', async () => {
    const { kv, writer, cache } = setup();
    let n = 0;
    const load = vi.fn(async () => answer(`{"n":${++n}}`));
    expect(await cache.view('t1', 'seed {}', load)).toEqual({ json: '{"n":1}', result: 'miss' });
    expect(await cache.view('t1', 'seed {}', load)).toEqual({ json: '{"n":2}', result: 'miss' });
    expect(await cache.view('t1', 'seed {}', load)).toEqual({ json: '{"n":2}', result: 'hit' });
    expect(load).toHaveBeenCalledTimes(2);
    await writer.changed('t1');
    // Kept before: kept again at once under the new token.
    expect(await cache.view('t1', 'seed {}', load)).toEqual({ json: '{"n":3}', result: 'miss' });
    expect(await cache.view('t1', 'seed {}', load)).toEqual({ json: '{"n":3}', result: 'hit' });
    await kv.close();
  });

  it('does not keep a view asked once', async () => {
    const { kv, cache } = setup();
    for (let i = 0; i < 50; i++) await cache.view('t', `page ${i}`, async () => answer('"x"'));
    expect(cache.size).toBe(0);
    await kv.close();
  });

  it('keeps tenants and views apart, and a write of one tenant leaves the other’s views', async () => {
    const { kv, writer, cache } = setup();
    await keep(cache, 't1', 'seed {}', async () => answer('"t1"'));
    await keep(cache, 't2', 'seed {}', async () => answer('"t2"'));
    await keep(cache, 't1', 'neighbors {"id":"a"}', async () => answer('"t1 a"'));
    const never = async () => answer('"loaded"');
    expect((await cache.view('t2', 'seed {}', never)).json).toBe('"t2"');
    expect((await cache.view('t1', 'neighbors {"id":"a"}', never)).json).toBe('"t1 a"');
    await writer.changed('t1');
    expect(await cache.view('t1', 'seed {}', never)).toEqual({ json: '"loaded"', result: 'miss' });
    expect(await cache.view('t2', 'seed {}', never)).toEqual({ json: '"t2"', result: 'hit' });
    await kv.close();
  });

  it('a view read while a write commits is kept under the token read before it, so it is not served after', async () => {
    const { kv, writer, cache } = setup();
    await cache.view('t', 'v', async () => answer('"asked once"'));
    // The load runs after the token was read; the write's new token lands while it runs.
    const stale = await cache.view('t', 'v', async () => {
      await writer.changed('t');
      return answer('"from before the write"');
    });
    expect(stale.result).toBe('miss');
    expect(await cache.view('t', 'v', async () => answer('"after"'))).toEqual({ json: '"after"', result: 'miss' });
    await kv.close();
  });

  it('never keeps a failed view', async () => {
    const { kv, cache } = setup();
    await expect(cache.view('t', 'v', () => Promise.reject(new Error('404')))).rejects.toThrow('404');
    await expect(cache.view('t', 'v', () => Promise.reject(new Error('404')))).rejects.toThrow('404');
    expect(await cache.view('t', 'v', async () => answer('1'))).toEqual({ json: '1', result: 'miss' });
    await kv.close();
  });

  it('holds at most maxBytes, least recently used first out', async () => {
    const { kv, cache } = setup({ maxBytes: 3100, maxAgeSeconds: 60 });
    const big = answer(`"${'x'.repeat(900)}"`);
    for (const k of ['a', 'b', 'c']) await keep(cache, 't', k, async () => big);
    await cache.view('t', 'a', async () => big); // a is used again: b is the oldest
    await keep(cache, 't', 'd', async () => big);
    expect(cache.size).toBeLessThanOrEqual(3100);
    expect((await cache.view('t', 'a', async () => big)).result).toBe('hit');
    expect((await cache.view('t', 'b', async () => big)).result).toBe('miss');
    await kv.close();
  });

  it('serves an entry for maxAgeSeconds at most, even while its token is current', async () => {
    let now = 1_000_000;
    const { kv, cache } = setup({ maxBytes: 1024, maxAgeSeconds: 60, now: () => now });
    await keep(cache, 't', 'v', async () => answer('1'));
    now += 59_000;
    expect((await cache.view('t', 'v', async () => answer('2'))).result).toBe('hit');
    now += 2_000;
    expect(await cache.view('t', 'v', async () => answer('2'))).toEqual({ json: '2', result: 'miss' });
    await kv.close();
  });

  it('is off with maxBytes 0: every view is loaded', async () => {
    const { kv, cache } = setup({ maxBytes: 0, maxAgeSeconds: 60 });
    const load = vi.fn(async () => answer('1'));
    await keep(cache, 't', 'v', load);
    expect(await cache.view('t', 'v', load)).toEqual({ json: '1', result: 'off' });
    expect(load).toHaveBeenCalledTimes(3);
    await kv.close();
  });
});

describe('kept views as bytes', () => {
  it('keeps the UTF-8 bytes of the text, non-ASCII titles included', async () => {
    const kv = createMemoryKv();
    const cache = new ViewCache(createViewVersions(kv), { maxBytes: 1024, maxAgeSeconds: 60 });
    const text = answer('{"title":"Café — 東京 🌏"}');
    await cache.view('t', 'seed', 'v', async () => text);
    const kept = await cache.view('t', 'seed', 'v', async () => text);
    const served = await cache.view('t', 'seed', 'v', async () => answer('"not asked"'));
    expect(served.result).toBe('hit');
    expect(Buffer.isBuffer(served.json)).toBe(true);
    expect(served.json).toBe(kept.json);
    expect(JSON.parse(served.json.toString())).toEqual({ title: 'Café — 東京 🌏' });
    await kv.close();
  });
});

/** A load that answers when told to. */
function deferred() {
  let settle!: { resolve: (v: JsonAnswer) => void; reject: (e: Error) => void };
  const promise = new Promise<JsonAnswer>((resolve, reject) => (settle = { resolve, reject }));
  return { load: vi.fn(() => promise), ...settle };
}

describe('asks of one view while it loads', () => {
  it('share the one load, and the view is kept (it was asked more than once)', async () => {
    const { kv, versions, cache } = setup();
    await versions.current('t'); // the tenant has a token (a fresh one is drawn by each first ask)
    const first = deferred();
    const asks = [1, 2, 3].map(() => cache.view('t', 'v', first.load));
    await new Promise((r) => setTimeout(r, 5));
    first.resolve(answer('"once"'));
    expect((await Promise.all(asks)).map((a) => a.result).sort()).toEqual(['miss', 'shared', 'shared']);
    expect((await Promise.all(asks)).map((a) => a.json)).toEqual(['"once"', '"once"', '"once"']);
    expect(first.load).toHaveBeenCalledTimes(1);
    expect(await cache.view('t', 'v', async () => answer('"not asked"'))).toEqual({ json: '"once"', result: 'hit' });
    await kv.close();
  });

  it('share a failure too, and the next ask loads again', async () => {
    const { kv, versions, cache } = setup();
    await versions.current('t');
    const failing = deferred();
    const asks = [1, 2].map(() => cache.view('t', 'v', failing.load));
    await new Promise((r) => setTimeout(r, 5));
    failing.reject(new Error('graph down'));
    for (const ask of asks) await expect(ask).rejects.toThrow('graph down');
    expect(failing.load).toHaveBeenCalledTimes(1);
    expect(await cache.view('t', 'v', async () => answer('"back"'))).toEqual({ json: '"back"', result: 'miss' });
    await kv.close();
  });

  it('do not share a load that started before a write of the tenant', async () => {
    const { kv, writer, cache } = setup();
    const before = deferred();
    const early = cache.view('t', 'v', before.load);
    await new Promise((r) => setTimeout(r, 5));
    await writer.changed('t');
    const late = await cache.view('t', 'v', async () => answer('"after the write"'));
    expect(late).toEqual({ json: '"after the write"', result: 'miss' });
    before.resolve(answer('"before the write"'));
    expect((await early).json).toBe('"before the write"');
    await kv.close();
  });
});

describe('view cache metrics', () => {
  it('counts asks by operation and result, and reports the bytes kept', async () => {
    const kv = createMemoryKv();
    const registry = new Registry();
    const cache = new ViewCache(createViewVersions(kv), { maxBytes: 1024, maxAgeSeconds: 60, registry });
    const load = async () => answer('"view"');
    for (let i = 0; i < 3; i++) await cache.view('t', 'seed', 'v', load);
    await cache.view('t', 'neighbors', 'v', load);
    const text = await registry.metrics();
    expect(text).toContain('kg_view_cache_requests_total{operation="seed",result="miss"} 2');
    expect(text).toContain('kg_view_cache_requests_total{operation="seed",result="hit"} 1');
    expect(text).toContain('kg_view_cache_requests_total{operation="neighbors",result="miss"} 1');
    expect(text).toMatch(new RegExp(`kg_view_cache_bytes ${cache.size}\\b`));
    expect(cache.size).toBeGreaterThan(0);
    await kv.close();
  });
});
