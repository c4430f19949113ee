import { describe, expect, it } from 'vitest';
import { createWorkPool } from './pool';

const gate = () => {
  let open!: () => void;
  const p = new Promise<void>((r) => (open = r));
  return { p, open };
};

describe('work pool', () => {
  it('runs at most `concurrency` tasks and makes submit wait while the queue is full', async () => {
    const pool = createWorkPool({ concurrency: 2, queueLimit: 1 });
    const gates = [gate(), gate(), gate(), gate()];
    let maxRunning = 0;
    const task = (i: number) => async () => {
      maxRunning = Math.max(maxRunning, pool.stats.running);
      await gates[i]!.p;
    };
    expect(await pool.submit('a', task(0))).toBe('accepted');
    expect(await pool.submit('b', task(1))).toBe('accepted');
    expect(await pool.submit('c', task(2))).toBe('accepted');
    expect(pool.stats).toEqual({ running: 2, queued: 1, aside: 0 });
    let fourthAccepted = false;
    const fourth = pool.submit('d', task(3)).then((r) => ((fourthAccepted = true), r));
    await new Promise((r) => setTimeout(r, 20));
    expect(fourthAccepted).toBe(false); // backpressure: the consumer waits here
    gates[0]!.open();
    expect(await fourth).toBe('accepted');
    for (const g of gates) g.open();
    await pool.idle();
    expect(maxRunning).toBe(2);
    expect(pool.stats).toEqual({ running: 0, queued: 0, aside: 0 });
  });

  it('drops a duplicate key while it is queued or running, and accepts it again afterwards', async () => {
    const pool = createWorkPool({ concurrency: 1, queueLimit: 10 });
    const g = gate();
    let runs = 0;
    const task = async () => {
      runs++;
      await g.p;
    };
    expect(await pool.submit('cap', task)).toBe('accepted');
    expect(await pool.submit('cap', task)).toBe('duplicate');
    g.open();
    await pool.idle();
    expect(await pool.submit('cap', task)).toBe('accepted');
    await pool.idle();
    expect(runs).toBe(2);
  });

  it('close waits for running tasks, drops queued ones and refuses new ones', async () => {
    const pool = createWorkPool({ concurrency: 1, queueLimit: 10 });
    const g = gate();
    const done: string[] = [];
    await pool.submit('a', async () => {
      await g.p;
      done.push('a');
    });
    await pool.submit('b', async () => void done.push('b'));
    const closing = pool.close();
    expect(await pool.submit('c', async () => void done.push('c'))).toBe('closed');
    g.open();
    await closing;
    expect(done).toEqual(['a']);
  });

  it('a task waiting aside gives its place to the next one and takes one back before any queued task', async () => {
    const pool = createWorkPool({ concurrency: 1, queueLimit: 2 });
    const host = gate();
    const order: string[] = [];
    const hold = gate();
    await pool.submit('a', async (aside) => {
      order.push('a waits aside');
      await aside(() => host.p);
      order.push('a back');
    });
    await pool.submit('b', async () => {
      order.push('b runs');
      await hold.p;
      order.push('b done');
    });
    await pool.submit('c', async () => void order.push('c runs'));
    await new Promise((r) => setTimeout(r, 10));
    expect(pool.stats).toEqual({ running: 1, queued: 1, aside: 1 });
    host.open(); // a's wait ends while b holds the one place: a comes back before c
    await new Promise((r) => setTimeout(r, 10));
    hold.open();
    await pool.idle();
    expect(order).toEqual(['a waits aside', 'b runs', 'b done', 'a back', 'c runs']);
  });

  it('while queueLimit tasks wait aside no queued task starts, and none waits for a turn in its place (no deadlock)', async () => {
    // One turn (a host's one concurrency slot), held from the wait until the task ends: the task
    // holding it comes back for a place, which a task waiting for the same turn must not hold.
    let holder: string | null = null;
    const waiting: (() => void)[] = [];
    const turn = async (key: string) => {
      while (holder) await new Promise<void>((r) => waiting.push(r));
      holder = key;
    };
    const release = () => {
      holder = null;
      waiting.splice(0).forEach((w) => w());
    };
    const pool = createWorkPool({ concurrency: 1, queueLimit: 1 });
    const done: string[] = [];
    const started: string[] = [];
    // (c's submit waits for room in the queue: not awaited here.)
    for (const key of ['a', 'b', 'c']) {
      void pool.submit(key, async (aside) => {
        started.push(key);
        await aside(() => turn(key));
        await new Promise((r) => setTimeout(r, 5));
        done.push(key);
        release();
      });
    }
    await new Promise((r) => setTimeout(r, 2));
    // a waits aside (the limit): b and c are not started meanwhile.
    expect(started).toEqual(['a']);
    const finished = await Promise.race([
      pool.idle().then(() => true),
      new Promise<boolean>((r) => setTimeout(() => r(false), 2000)),
    ]);
    expect(finished).toBe(true);
    expect(done).toEqual(['a', 'b', 'c']);
  });
});
