import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { AppError } from '@kg/contracts';
import { createMemoryKv } from './memory';
import { createCursorStore } from './cursors';

describe('cursor store', () => {
  const store = createCursorStore<{ after: string }>(createMemoryKv(), 'test');

  it('resumes the state it issued for the same binding only', async () => {
    const c = await store.issue('tnt_a|node_1|out', { after: 'x' });
    expect(await store.resume(c, 'tnt_a|node_1|out')).toEqual({ after: 'x' });
    await expect(store.resume(c, 'tnt_b|node_1|out')).rejects.toBeInstanceOf(AppError);
    await expect(store.resume(c, 'tnt_a|node_1|in')).rejects.toMatchObject({ kind: 'invalid' });
  });

  it('gives the same page the same cursor, and any other binding or position another', async () => {
    const kv = createMemoryKv();
    const writes: string[] = [];
    const counting = { ...kv, set: (k: string, v: string, ttl: number) => (writes.push(k), kv.set(k, v, ttl)) };
    const s = createCursorStore<{ after: string }>(counting, 'same');
    const c = await s.issue('tnt_a|node_1|out', { after: 'x' });
    expect(await s.issue('tnt_a|node_1|out', { after: 'x' })).toBe(c);
    expect(new Set(writes).size).toBe(1); // written twice (fresh TTL), one entry
    expect(c).toMatch(/^c_[A-Za-z0-9_-]{22}$/);
    expect(await s.issue('tnt_b|node_1|out', { after: 'x' })).not.toBe(c);
    expect(await s.issue('tnt_a|node_1|out', { after: 'y' })).not.toBe(c);
    // Another process (another key) cannot predict it.
    expect(await createCursorStore(kv, 'same').issue('tnt_a|node_1|out', { after: 'x' })).not.toBe(c);
  });

  it('rejects expired cursors', async () => {
    const short = createCursorStore<number>(createMemoryKv(), 'short', 0);
    const c = await short.issue('b', 1);
    await expect(short.resume(c, 'b')).rejects.toMatchObject({ kind: 'invalid' });
  });

  it('rejects any string it did not issue (property)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ maxLength: 40 }), async (garbage) => {
        await expect(store.resume(garbage, 'tnt_a|node_1|out')).rejects.toMatchObject({ kind: 'invalid' });
      }),
      { numRuns: 100 },
    );
  });
});

describe('cursor store on a failing kv', () => {
  const down = {
    ...createMemoryKv(),
    get: () => Promise.reject(new Error('ECONNREFUSED')),
    set: () => Promise.reject(new Error('ECONNREFUSED')),
  };
  const store = createCursorStore<number>(down, 'down');

  it('answers unavailable (503 with Retry-After), never an untyped error', async () => {
    await expect(store.issue('b', 1)).rejects.toMatchObject({ kind: 'unavailable', status: 503 });
    await expect(store.resume('c_AAAAAAAAAAAAAAAAAAAAAA', 'b')).rejects.toMatchObject({
      kind: 'unavailable',
      extra: { retryAfterSeconds: expect.any(Number) },
    });
  });
});
