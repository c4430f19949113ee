import { afterEach, describe, expect, it, vi } from 'vitest';
import { createMemoryKv, type KvStore } from '@kg/kv';
import { createStreamSlots, isCapReached, type StreamLease } from './stream-slots';

const A = 'tnt_01jd8x6q1bf5r3v2m9w7k4t0za';
const B = 'tnt_01jd8x6q1bf5r3v2m9w7k4t0zb';
const quiet = () => undefined;

const lease = (r: Awaited<ReturnType<ReturnType<typeof createStreamSlots>['acquire']>>): StreamLease => {
  if (isCapReached(r)) throw new Error(`refused: ${r.scope}`);
  return r;
};

afterEach(() => {
  vi.useRealTimers();
});

describe('stream slots (caps on concurrent GET /events streams)', () => {
  it('refuses past the credential cap, then past the tenant cap; a release frees a slot; tenants apart', async () => {
    const slots = createStreamSlots(createMemoryKv(), { perCredential: 2, perTenant: 3 });
    const a1 = lease(await slots.acquire(A, 'key:1', quiet));
    lease(await slots.acquire(A, 'key:1', quiet));
    expect(await slots.acquire(A, 'key:1', quiet)).toEqual({ scope: 'credential', limit: 2 });
    lease(await slots.acquire(A, 'key:2', quiet));
    expect(await slots.acquire(A, 'key:2', quiet)).toEqual({ scope: 'tenant', limit: 3 });
    // The refused tenant slot gave its credential slot back: key:2 still holds one stream only.
    await a1.release();
    await a1.release(); // twice: frees nothing more
    lease(await slots.acquire(A, 'key:2', quiet));
    expect(await slots.acquire(A, 'key:3', quiet)).toEqual({ scope: 'tenant', limit: 3 });
    // Another tenant (the same credential key, too) has caps of its own.
    lease(await slots.acquire(B, 'key:1', quiet));
    lease(await slots.acquire(B, 'key:1', quiet));
  });

  it('concurrent takers never hold more slots than the cap', async () => {
    const slots = createStreamSlots(createMemoryKv(), { perCredential: 5, perTenant: 100 });
    const results = await Promise.all(Array.from({ length: 20 }, () => slots.acquire(A, 'key:1', quiet)));
    expect(results.filter((r) => !isCapReached(r))).toHaveLength(5);
  });

  it('a holder that vanished (a killed replica: no renewal, no release) loses its slots when the lease runs out', async () => {
    vi.useFakeTimers();
    const kv = createMemoryKv();
    // The killed replica's renewals never land.
    const dead: KvStore = { ...kv, set: async () => undefined };
    const killed = createStreamSlots(dead, { perCredential: 1, perTenant: 1, leaseSeconds: 30 });
    const alive = createStreamSlots(kv, { perCredential: 1, perTenant: 1, leaseSeconds: 30 });
    lease(await killed.acquire(A, 'key:1', quiet));
    expect(await alive.acquire(A, 'key:1', quiet)).toEqual({ scope: 'credential', limit: 1 });
    await vi.advanceTimersByTimeAsync(31_000);
    const held = lease(await alive.acquire(A, 'key:1', quiet));
    // A live holder renews its lease: long after the lease time it still holds the slot.
    await vi.advanceTimersByTimeAsync(120_000);
    expect(await alive.acquire(A, 'key:1', quiet)).toEqual({ scope: 'credential', limit: 1 });
    await held.release();
    lease(await alive.acquire(A, 'key:1', quiet));
  });

  it('a release never frees a slot another stream took after the lease ran out', async () => {
    vi.useFakeTimers();
    const kv = createMemoryKv();
    const dead: KvStore = { ...kv, set: async () => undefined };
    const stale = lease(
      await createStreamSlots(dead, { perCredential: 1, perTenant: 5, leaseSeconds: 30 }).acquire(A, 'key:1', quiet),
    );
    await vi.advanceTimersByTimeAsync(31_000);
    const slots = createStreamSlots(kv, { perCredential: 1, perTenant: 5, leaseSeconds: 30 });
    lease(await slots.acquire(A, 'key:1', quiet));
    await stale.release();
    expect(await slots.acquire(A, 'key:1', quiet)).toEqual({ scope: 'credential', limit: 1 });
  });
});
