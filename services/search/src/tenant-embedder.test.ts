import { describe, expect, it } from 'vitest';
import type { Embedder } from '@kg/embeddings';
import { createEmbeddingCache } from './embedding-cache';
import { createEmbedderQueue } from './embedder-queue';
import { createTenantEmbedder } from './tenant-embedder';

/** An embedder whose calls wait until `next()` lets the oldest through; `calls` lists each call's texts. */
function stepped() {
  const calls: string[][] = [];
  const held: Array<() => void> = [];
  const embedder: Embedder = {
    model: 'm',
    dimensions: 1,
    modelInput: (text) => text,
    async embed(texts) {
      calls.push(texts);
      await new Promise<void>((resolve) => held.push(resolve));
      return texts.map((t) => Float32Array.of(t.length));
    },
    close: async () => {},
  };
  const settle = () => new Promise((r) => setImmediate(r));
  return {
    embedder,
    calls,
    settle,
    async next() {
      await settle();
      held.shift()?.();
      await settle();
    },
    get held() {
      return held.length;
    },
  };
}

describe('tenant embedder (cache, then the fair queue, then the model)', () => {
  it('answers a tenant’s cached text at once, without waiting for a turn', async () => {
    const s = stepped();
    const tenants = createTenantEmbedder(s.embedder, createEmbeddingCache(10), createEmbedderQueue());
    const first = tenants.for('tenant-a', 'interactive').embed(['kept'], 'query');
    await s.next();
    await first;
    // The model is busy with another tenant's work, and more waits.
    const busy = [0, 1, 2].map((i) => tenants.for('tenant-b', 'interactive').embed([`b${i}`], 'query'));
    await s.settle();
    const [again] = await tenants.for('tenant-a', 'interactive').embed(['kept'], 'query');
    expect(again![0]).toBe(4);
    expect(s.calls).toEqual([['kept'], ['b0']]);
    while (s.held > 0) await s.next();
    await Promise.all(busy);
  });

  it('embeds a node’s passages one job each, so another tenant’s query waits for one passage, not the node', async () => {
    const s = stepped();
    const tenants = createTenantEmbedder(s.embedder, createEmbeddingCache(10), createEmbedderQueue());
    const node = tenants.for('tenant-a', 'background').embed(['p1', 'p2', 'p3', 'p4'], 'passage');
    await s.settle();
    const query = tenants.for('tenant-b', 'interactive').embed(['question'], 'query');
    while (s.held > 0) await s.next();
    expect((await node).map((v) => v[0])).toEqual([2, 2, 2, 2]);
    expect((await query)[0]![0]).toBe(8);
    expect(s.calls).toEqual([['p1'], ['question'], ['p2'], ['p3'], ['p4']]);
  });

  it('a refused query leaves nothing behind: the same text is embedded once the queue has room', async () => {
    const s = stepped();
    const tenants = createTenantEmbedder(
      s.embedder,
      createEmbeddingCache(10),
      createEmbedderQueue({ maxQueuedPerTenant: 1 }),
    );
    const a = tenants.for('tenant-a', 'interactive');
    const running = a.embed(['q0'], 'query');
    const waiting = a.embed(['q1'], 'query');
    await s.settle();
    await expect(a.embed(['q2'], 'query')).rejects.toMatchObject({ kind: 'rate_limited' });
    while (s.held > 0) await s.next();
    await Promise.all([running, waiting]);
    const retried = a.embed(['q2'], 'query');
    while (s.held > 0 || s.calls.length < 3) await s.next();
    expect((await retried)[0]![0]).toBe(2);
    expect(s.calls).toEqual([['q0'], ['q1'], ['q2']]);
  });
});
