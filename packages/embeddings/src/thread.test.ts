import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLocalEmbedder } from './local';
import type { Embedder } from './port';
import { ensureLocalModel } from './testing/model';
import { createThreadedEmbedder, type ThreadedEmbedder } from './thread';

const TEXTS = ['a note about graphs', 'Kubernetes pods roll during an upgrade', 'x'];

describe('local embedder in a worker thread', () => {
  let inProcess: Embedder;
  let threaded: ThreadedEmbedder;
  beforeAll(async () => {
    ensureLocalModel();
    [inProcess, threaded] = await Promise.all([createLocalEmbedder(), createThreadedEmbedder()]);
  }, 300_000);
  afterAll(async () => {
    await inProcess?.close();
    await threaded?.close();
  });

  it('answers the same vectors as the in-process model, in input order', async () => {
    const [a, b] = await Promise.all([inProcess.embed(TEXTS, 'passage'), threaded.embed(TEXTS, 'passage')]);
    expect(threaded.model).toBe(inProcess.model);
    expect(b).toHaveLength(TEXTS.length);
    b.forEach((v, i) => {
      expect(v).toBeInstanceOf(Float32Array);
      expect([...v]).toEqual([...a[i]!]);
    });
  });

  it('leaves the event loop free while it embeds', async () => {
    const long = Array.from({ length: 15 }, (_, i) => `text ${i} ` + 'words of prose about many things '.repeat(30));
    let ticks = 0;
    const timer = setInterval(() => (ticks += 1), 5);
    const t0 = performance.now();
    await threaded.embed(long, 'passage');
    const elapsed = performance.now() - t0;
    clearInterval(timer);
    // In-process, the timer could not fire during the forward passes (one tick at most per pass).
    expect(elapsed).toBeGreaterThan(100);
    expect(ticks).toBeGreaterThan(elapsed / 5 / 4);
  });

  it('starts a new thread when its thread dies, failing only the calls it held', async () => {
    const e = await createThreadedEmbedder();
    try {
      const held = e.embed(
        Array.from({ length: 50 }, (_, i) => `text ${i} `.repeat(40)),
        'passage',
      );
      await e.terminate();
      await expect(held).rejects.toMatchObject({ name: 'EmbeddingsError', retryable: true });
      const [v] = await e.embed(['another text'], 'query');
      expect(v).toHaveLength(384);
      expect(e.threadsStarted).toBe(2);
    } finally {
      await e.close();
    }
  });

  it('runs the model at the nice value asked, and leaves the other threads as they were', async () => {
    /** This process's threads: id → nice value (field 19 of /proc's stat, after the name in parentheses). */
    const niceByThread = () =>
      new Map(
        readdirSync('/proc/self/task').map((tid) => {
          const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
          return [tid, Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16])] as const;
        }),
      );
    const before = niceByThread();
    const e = await createThreadedEmbedder({ nice: 7 });
    try {
      await e.embed(['a text'], 'passage');
      const after = niceByThread();
      const niced = [...after].filter(([tid, nice]) => nice === 7 && !before.has(tid));
      expect(niced).toHaveLength(1); // the model's thread, started by this embedder
      expect(after.get(String(process.pid))).toBe(0); // the main thread
      for (const [tid, nice] of before) if (after.has(tid)) expect(after.get(tid), `thread ${tid}`).toBe(nice);
    } finally {
      await e.close();
    }
  });

  it('refuses calls after close', async () => {
    const e = await createThreadedEmbedder();
    await e.close();
    await expect(e.embed(['late'], 'query')).rejects.toThrow(/closed/);
  });

  it('keeps a script alive until close() has ended, when closing is its last step', () => {
    // The thread is unref'd; a script ending in `await close()` once exited with that await
    // unsettled (exit code 13) and never ran what came after.
    const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
    const thread = pathToFileURL(fileURLToPath(new URL('./thread.ts', import.meta.url))).href;
    const script = `const { createThreadedEmbedder } = await import(${JSON.stringify(thread)});
      const e = await createThreadedEmbedder();
      await e.embed(['one'], 'query');
      await e.close();
      console.log('closed');`;
    const run = spawnSync(process.execPath, ['--import', tsx, '--input-type=module', '-e', script], {
      encoding: 'utf8',
      timeout: 120_000,
    });
    expect(run.stderr).not.toMatch(/unsettled/);
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout.trim()).toBe('closed');
  }, 180_000);
});
