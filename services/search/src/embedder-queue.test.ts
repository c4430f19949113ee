import { describe, expect, it } from 'vitest';
import { AppError } from '@kg/contracts';
import { createEmbedderQueue, type EmbedPriority } from './embedder-queue';

/**
 * Jobs that record the order they start in and finish only when the test says so: `step()`
 * lets the oldest running job finish, then waits until the queue has started the next one.
 */
function harness(options: Parameters<typeof createEmbedderQueue>[0]) {
  const queue = createEmbedderQueue(options);
  const started: string[] = [];
  const running: Array<{ label: string; finish: (fail?: boolean) => void }> = [];
  const submit = (tenantId: string, priority: EmbedPriority, label: string, signal?: AbortSignal) =>
    queue.run(
      tenantId,
      priority,
      () =>
        new Promise<string>((resolve, reject) => {
          started.push(label);
          running.push({ label, finish: (fail) => (fail ? reject(new Error(`${label} failed`)) : resolve(label)) });
        }),
      signal,
    );
  const settle = () => new Promise((r) => setImmediate(r));
  return {
    queue,
    started,
    submit,
    async step(fail = false) {
      running.shift()!.finish(fail);
      await settle();
    },
    async drain() {
      await settle();
      while (running.length > 0) await this.step();
    },
    settle,
  };
}

describe('embedder queue: tenants served round-robin', () => {
  it("serves tenant B's query after at most one embedding per active tenant, however many A has queued", async () => {
    const h = harness({ maxQueuedPerTenant: 200 });
    const a = Array.from({ length: 100 }, (_, i) => h.submit('tenant-a', 'interactive', `a${i}`));
    await h.settle();
    expect(h.started).toEqual(['a0']);
    const b = h.submit('tenant-b', 'interactive', 'b0');
    await h.step();
    await h.step();
    // a0 was running when b0 came; A had had its turn of the round: b0 went next.
    expect(h.started).toEqual(['a0', 'b0', 'a1']);
    await h.drain();
    expect(await b).toBe('b0');
    expect(await Promise.all(a)).toHaveLength(100);
  });

  it('with three tenants flooding, a fourth waits for at most one embedding of each', async () => {
    const h = harness({ maxQueuedPerTenant: 100 });
    const floods = ['a', 'c', 'd'].flatMap((t) =>
      Array.from({ length: 50 }, (_, i) => h.submit(`tenant-${t}`, 'interactive', `${t}${i}`)),
    );
    await h.settle();
    await h.step();
    const b = h.submit('tenant-b', 'interactive', 'b0');
    await h.drain();
    await Promise.all([b, ...floods]);
    // c0 was running when b0 came: d0 had yet to have its turn of the round, then b0, then the next round.
    expect(h.started.slice(0, 8)).toEqual(['a0', 'c0', 'd0', 'b0', 'a1', 'c1', 'd1', 'a2']);
    expect(h.started.indexOf('b0') - h.started.indexOf('c0')).toBe(2);
  });

  it('a tenant earns no credit while idle: back with three queries, it alternates with the others', async () => {
    const h = harness({ maxQueuedPerTenant: 100 });
    const a = Array.from({ length: 20 }, (_, i) => h.submit('tenant-a', 'interactive', `a${i}`));
    await h.settle();
    for (let i = 0; i < 5; i += 1) await h.step();
    const b = ['b0', 'b1', 'b2'].map((l) => h.submit('tenant-b', 'interactive', l));
    await h.drain();
    await Promise.all([...a, ...b]);
    expect(h.started.slice(5, 11)).toEqual(['a5', 'b0', 'a6', 'b1', 'a7', 'b2']);
  });

  it('alternates between tenants with queued queries, each in its own order', async () => {
    const h = harness({ maxQueuedPerTenant: 10 });
    const all = [
      ...['a0', 'a1', 'a2', 'a3'].map((l) => h.submit('tenant-a', 'interactive', l)),
      ...['b0', 'b1'].map((l) => h.submit('tenant-b', 'interactive', l)),
      ...['c0'].map((l) => h.submit('tenant-c', 'interactive', l)),
    ];
    await h.settle();
    await h.drain();
    await Promise.all(all);
    expect(h.started).toEqual(['a0', 'b0', 'c0', 'a1', 'b1', 'a2', 'a3']);
  });

  it('refuses a query at once with a 429 when its tenant already has the cap waiting; other tenants are still queued', async () => {
    const h = harness({ maxQueuedPerTenant: 2 });
    const a = ['a0', 'a1', 'a2'].map((l) => h.submit('tenant-a', 'interactive', l));
    await h.settle();
    // a0 runs, a1 and a2 wait: the cap (2) is reached.
    const refused = await h.submit('tenant-a', 'interactive', 'a3').catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(AppError);
    expect(refused).toMatchObject({ kind: 'rate_limited', status: 429, extra: { retryAfterSeconds: 1 } });
    expect((refused as Error).message).toMatch(/embedder/);
    const b = h.submit('tenant-b', 'interactive', 'b0');
    expect(h.queue.stats()).toMatchObject({ running: 1, queued: { interactive: 3, background: 0 }, refused: 1 });
    await h.drain();
    expect(await Promise.all([...a, b])).toEqual(['a0', 'a1', 'a2', 'b0']);
    expect(h.started).not.toContain('a3');
    // Once the queue has room again, the tenant is served.
    const again = h.submit('tenant-a', 'interactive', 'a4');
    await h.drain();
    expect(await again).toBe('a4');
  });

  it('does not cap background work (its callers bound it) and serves it only when no query waits, or its share', async () => {
    const h = harness({ maxQueuedPerTenant: 1, backgroundEvery: 3 });
    const bg = Array.from({ length: 5 }, (_, i) => h.submit('tenant-a', 'background', `bg${i}`));
    await h.settle();
    const q = ['q0', 'q1', 'q2', 'q3', 'q4'].map((l, i) => h.submit(`tenant-${i}`, 'interactive', l));
    await h.drain();
    await Promise.all([...bg, ...q]);
    // bg0 was running; then every third start goes to background work while queries wait.
    expect(h.started).toEqual(['bg0', 'q0', 'q1', 'bg1', 'q2', 'q3', 'bg2', 'q4', 'bg3', 'bg4']);
  });

  it('serves a tenant’s queries before its own background work', async () => {
    const h = harness({ maxQueuedPerTenant: 10, backgroundEvery: 100 });
    const first = h.submit('tenant-a', 'background', 'bg0');
    await h.settle();
    const rest = [
      h.submit('tenant-a', 'background', 'bg1'),
      h.submit('tenant-a', 'interactive', 'q0'),
      h.submit('tenant-a', 'interactive', 'q1'),
    ];
    await h.drain();
    await Promise.all([first, ...rest]);
    expect(h.started).toEqual(['bg0', 'q0', 'q1', 'bg1']);
  });

  it('keeps serving after an embedding fails: only that caller gets the error', async () => {
    const h = harness({});
    const a = h.submit('tenant-a', 'interactive', 'a0').catch((e: unknown) => e);
    const b = h.submit('tenant-b', 'interactive', 'b0');
    await h.settle();
    await h.step(true);
    await h.drain();
    expect(await a).toEqual(new Error('a0 failed'));
    expect(await b).toBe('b0');
    expect(h.queue.stats()).toMatchObject({ running: 0, queued: { interactive: 0, background: 0 } });
  });

  it('a job that throws before returning a promise is that caller’s error too', async () => {
    const queue = createEmbedderQueue({});
    const bad = queue.run('tenant-a', 'interactive', () => {
      throw new Error('sync failure');
    });
    await expect(bad).rejects.toThrow('sync failure');
    expect(await queue.run('tenant-a', 'interactive', async () => 'next')).toBe('next');
  });

  it('drops a waiting job whose caller gave up; it never runs and frees its place under the cap', async () => {
    const h = harness({ maxQueuedPerTenant: 1 });
    const a0 = h.submit('tenant-a', 'interactive', 'a0');
    await h.settle();
    const gaveUp = new AbortController();
    const a1 = h.submit('tenant-a', 'interactive', 'a1', gaveUp.signal);
    gaveUp.abort(new Error('client went away'));
    await expect(a1).rejects.toThrow('client went away');
    const a2 = h.submit('tenant-a', 'interactive', 'a2');
    await h.drain();
    expect(await Promise.all([a0, a2])).toEqual(['a0', 'a2']);
    expect(h.started).toEqual(['a0', 'a2']);
    // Aborted before it was queued: never queued.
    await expect(h.queue.run('tenant-a', 'interactive', async () => 'x', AbortSignal.abort())).rejects.toThrow();
  });

  it('runs up to `concurrency` jobs at once, still tenant by tenant', async () => {
    const h = harness({ concurrency: 2, maxQueuedPerTenant: 10 });
    const a = ['a0', 'a1', 'a2', 'a3'].map((l) => h.submit('tenant-a', 'interactive', l));
    await h.settle();
    expect(h.started).toEqual(['a0', 'a1']);
    const b = h.submit('tenant-b', 'interactive', 'b0');
    await h.step();
    await h.step();
    expect(h.started).toEqual(['a0', 'a1', 'b0', 'a2']);
    await h.drain();
    await Promise.all([...a, b]);
    expect(h.started).toEqual(['a0', 'a1', 'b0', 'a2', 'a3']);
  });
});
