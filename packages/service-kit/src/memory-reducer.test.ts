import { getHeapStatistics } from 'node:v8';
import { describe, expect, it } from 'vitest';
import { Registry } from 'prom-client';
import { collectAllGarbage, startMemoryReducer, type MemoryProbe } from './memory-reducer';

const MiB = 2 ** 20;
const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A process whose RSS and event-loop load the test sets; collections are counted (and may fail). */
function fakeProbe(start: number) {
  const state = { rss: start, busy: 0, collections: 0, failNext: false, rssAfterCollect: start };
  const probe: MemoryProbe = {
    rss: () => state.rss,
    busy: () => state.busy,
    collect: async () => {
      state.collections += 1;
      if (state.failNext) {
        state.failNext = false;
        throw new Error('inspector unavailable');
      }
      state.rss = state.rssAfterCollect;
    },
  };
  return { probe, state };
}

describe('idle memory reducer', () => {
  it('hands emptied heap pages back: the heap V8 reports shrinks after a burst of garbage', async () => {
    let kept: unknown[] | null = Array.from({ length: 400_000 }, (_, i) => ({ i, s: `item ${i}`, a: [i, i + 1] }));
    const grown = getHeapStatistics().total_heap_size;
    expect(kept.length).toBe(400_000);
    kept = null;
    await collectAllGarbage();
    const after = getHeapStatistics().total_heap_size;
    expect(kept).toBeNull();
    expect(grown - after).toBeGreaterThan(20 * MiB);
  });

  it('collects once the process is idle with grown memory, then waits for new growth', async () => {
    const { probe, state } = fakeProbe(500 * MiB);
    const registry = new Registry();
    const reducer = startMemoryReducer({ intervalMs: 10, probe, registry, minGrowthBytes: 64 * MiB });
    try {
      state.rss = 600 * MiB; // grown, but busy: a person is being served
      state.busy = 0.9;
      await wait(60);
      expect(state.collections).toBe(0);

      state.busy = 0.05; // idle
      state.rssAfterCollect = 520 * MiB;
      await wait(60);
      expect(state.collections).toBe(1);
      await wait(60); // 520 MiB is the new baseline: nothing grew since
      expect(state.collections).toBe(1);

      state.rss = 560 * MiB; // grown by less than 64 MiB
      await wait(60);
      expect(state.collections).toBe(1);

      const metrics = await registry.getMetricsAsJSON();
      const value = (name: string) => metrics.find((m) => m.name === name)?.values[0]?.value;
      expect(value('kg_memory_reductions_total')).toBe(1);
      expect(value('kg_memory_reduced_bytes_total')).toBe(80 * MiB);
    } finally {
      reducer.stop();
    }
  });

  it('a failed collection is tried again at a later idle check; 0 turns the reducer off', async () => {
    const { probe, state } = fakeProbe(100 * MiB);
    const warned: unknown[] = [];
    const logger = { warn: (o: unknown) => warned.push(o), debug: () => undefined } as never;
    const reducer = startMemoryReducer({ intervalMs: 10, probe, logger, minGrowthBytes: 10 * MiB });
    try {
      state.failNext = true;
      state.rss = 200 * MiB;
      state.rssAfterCollect = 120 * MiB;
      await wait(80);
      expect(warned).toHaveLength(1);
      expect(state.collections).toBe(2);
      expect(state.rss).toBe(120 * MiB);
    } finally {
      reducer.stop();
    }

    const off = fakeProbe(100 * MiB);
    off.state.rss = 900 * MiB;
    const stopped = startMemoryReducer({ intervalMs: 0, probe: off.probe });
    await wait(40);
    stopped.stop();
    expect(off.state.collections).toBe(0);
  });
});
