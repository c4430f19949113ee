import { afterEach, describe, expect, it, vi } from 'vitest';
import { createLogger } from '@kg/logger';
import { createPeriodicJob } from './periodic';

const logger = createLogger('test', 'silent');

afterEach(() => {
  vi.useRealTimers();
});

describe('createPeriodicJob', () => {
  it('runs a pass per tick, never two at once, and keeps going after a failed pass', async () => {
    vi.useFakeTimers();
    let calls = 0;
    let release: (() => void) | null = null;
    const warn = vi.spyOn(logger, 'warn');
    const job = createPeriodicJob({
      name: 'test job',
      intervalMs: 100,
      logger,
      run: async () => {
        calls += 1;
        if (calls === 1) throw new Error('boom');
        if (calls === 2) await new Promise<void>((resolve) => (release = resolve));
        return calls;
      },
    });
    job.start();
    job.start(); // a second start is a no-op
    await vi.advanceTimersByTimeAsync(100);
    expect(calls).toBe(1);
    expect(warn).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(100); // pass 2 starts and hangs
    await vi.advanceTimersByTimeAsync(300); // ticks while it runs start nothing
    expect(calls).toBe(2);
    const stopped = job.stop();
    release!();
    await stopped;
    await vi.advanceTimersByTimeAsync(500);
    expect(calls).toBe(2);
    expect(await job.runOnce()).toBe(3);
  });
});
