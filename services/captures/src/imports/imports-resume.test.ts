import { and, eq, inArray } from 'drizzle-orm';
import { describe, expect, it, vi } from 'vitest';
import { items } from '../store/schema';
import { alice, netscape, useImportsHarness } from './testing';

vi.setConfig({ testTimeout: 60_000 });

/** A bookmark import's runner stopped, killed or cancelled between batches, and its admission of captures. */
const h = useImportsHarness();
const { gateway, runner, upload, capturesOf, countUrl } = h;

describe('resume: a runner stopped or killed between batches', () => {
  /** Each of the file's addresses is captured exactly once. */
  async function exactlyOnce(importId: string, prefix: string, n: number) {
    const made = await capturesOf(importId);
    expect(made).toHaveLength(n);
    for (let i = 0; i < n; i += 7) expect(await countUrl(alice.tenantId, `https://n.example/${prefix}/${i}`)).toBe(1);
    expect(new Set(made.map((c) => c.url)).size).toBe(n);
  }

  it('stopped after a batch: the next runner goes on after the last committed batch', async () => {
    const started = await upload(netscape(45, 'stop'));
    const first = runner({}, { afterBatch: (n) => (n === 2 ? void first.stop() : undefined) });
    await first.drain();
    const paused = await gateway().get({ id: started.id });
    expect(paused.status).toBe('running');
    expect(paused.counts.created).toBe(20);
    await runner().drain();
    const done = await gateway().get({ id: started.id });
    expect(done).toMatchObject({ status: 'completed', counts: { seen: 45, created: 45, duplicates: 0 } });
    await exactlyOnce(started.id, 'stop', 45);
  });

  it('killed mid-import (it stalls holding its claim): after the claim expires another runner finishes, and the dead one can no longer write', async () => {
    const started = await upload(netscape(45, 'kill'));
    let wakeDead: () => void = () => undefined;
    const dead = runner(
      {},
      { afterBatch: (n) => (n === 2 ? new Promise<void>((resume) => (wakeDead = resume)) : undefined) },
    );
    const deadRun = dead.drain();
    await vi.waitFor(async () => expect((await gateway().get({ id: started.id })).counts.created).toBe(20));
    // Not claimable while the claim holds.
    expect(await runner().drain()).toBe(0);
    h.setClock(31_000);
    expect(await runner().drain()).toBe(1);
    expect(await gateway().get({ id: started.id })).toMatchObject({ status: 'completed', counts: { created: 45 } });
    // The stalled runner wakes up: its next batch is refused (it no longer holds the import) and rolled back.
    wakeDead();
    await deadRun;
    await exactlyOnce(started.id, 'kill', 45);
    expect((await gateway().get({ id: started.id })).counts).toMatchObject({ seen: 45, created: 45, duplicates: 0 });
  });

  it('a cancel while running stops it at the next batch; the captures made stay', async () => {
    const started = await upload(netscape(45, 'cancelrun'));
    const r = runner({}, { afterBatch: async (n) => void (n === 1 && (await gateway().cancel({ id: started.id }))) });
    await r.drain();
    const after = await gateway().get({ id: started.id });
    expect(after.status).toBe('cancelled');
    expect(await capturesOf(started.id)).toHaveLength(10);
  });
});

describe('admission', () => {
  it('adds captures only while fewer than IMPORT_MAX_IN_FLIGHT of them are pending or processing', async () => {
    const started = await upload(netscape(50, 'drip'));
    const r = runner({ maxInFlight: 20 });
    const run = r.drain();
    await vi.waitFor(async () => expect((await gateway().get({ id: started.id })).counts.created).toBe(20));
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect((await gateway().get({ id: started.id })).counts.created).toBe(20);
    // The pipeline finishes them: the import goes on, 20 at most in flight at any time.
    for (let round = 0; round < 3; round++) {
      await h.database.db
        .update(items)
        .set({ status: 'processed' })
        .where(and(eq(items.importId, started.id), inArray(items.status, ['pending', 'processing'])));
      await vi.waitFor(async () =>
        expect((await gateway().get({ id: started.id })).counts.created).toBe(Math.min(50, 20 * (round + 2))),
      );
    }
    await run;
    expect((await gateway().get({ id: started.id })).status).toBe('completed');
  });
});
