/**
 * Concurrency and backpressure of the worker: at most `concurrency` runs at once and
 * `queueLimit` waiting; `submit` resolves once the run is accepted, and waits while the queue is
 * full, so the bus consumer stops taking messages when the worker is busy. A key (the capture
 * id) runs once at a time: a duplicate delivery while it is queued or running is dropped.
 *
 * A running task may wait aside (`aside`): while it waits for something outside the worker
 * (its turn at a host, stages/fetch politeness) its place is given to the next task, and it
 * takes the next free place back before any queued task. While `queueLimit` tasks wait aside,
 * no queued task is started (the places are kept for those coming back). A task never waits
 * for a turn while holding a place: the turn's holder, back from its own wait, would need that
 * place, and neither would move (a flood of one host's captures once stopped the worker so).
 */
export type Aside = <T>(wait: () => Promise<T>) => Promise<T>;

export interface WorkPool {
  submit(key: string, task: (aside: Aside) => Promise<void>): Promise<'accepted' | 'duplicate' | 'closed'>;
  /** Resolves when nothing is queued or running. */
  idle(): Promise<void>;
  /** Stops accepting; resolves when the accepted runs have finished. */
  close(): Promise<void>;
  readonly stats: { running: number; queued: number; aside: number };
}

export function createWorkPool(opts: { concurrency: number; queueLimit: number }): WorkPool {
  const queue: { key: string; task: (aside: Aside) => Promise<void> }[] = [];
  const keys = new Set<string>();
  let running = 0;
  let aside = 0;
  /** Tasks back from waiting aside, each waiting for a place (served before the queue). */
  const returning: (() => void)[] = [];
  let closed = false;
  let spaceWaiters: (() => void)[] = [];
  let idleWaiters: (() => void)[] = [];

  const wake = (list: (() => void)[]) => {
    for (const w of list) w();
  };
  const setAside: Aside = async (wait) => {
    aside++;
    running--;
    pump();
    try {
      return await wait();
    } finally {
      aside--;
      if (running < opts.concurrency && returning.length === 0) {
        running++;
        pump(); // fewer aside: a queued task may start in a place left free
      } else await new Promise<void>((r) => returning.push(r));
    }
  };
  function pump() {
    while (running < opts.concurrency && returning.length > 0) {
      running++;
      returning.shift()!();
    }
    while (running < opts.concurrency && aside < opts.queueLimit && queue.length > 0) {
      const { key, task } = queue.shift()!;
      running++;
      const waiters = spaceWaiters;
      spaceWaiters = [];
      wake(waiters);
      void task(setAside)
        .catch(() => undefined) // tasks handle their own errors; the pool only keeps count
        .finally(() => {
          running--;
          keys.delete(key);
          pump();
          if (running === 0 && queue.length === 0 && aside === 0) {
            const idle = idleWaiters;
            idleWaiters = [];
            wake(idle);
          }
        });
    }
  }

  return {
    async submit(key, task) {
      while (!closed && queue.length >= opts.queueLimit) await new Promise<void>((r) => spaceWaiters.push(r));
      if (closed) return 'closed';
      if (keys.has(key)) return 'duplicate';
      keys.add(key);
      queue.push({ key, task });
      pump();
      return 'accepted';
    },
    idle() {
      return running === 0 && queue.length === 0 && aside === 0
        ? Promise.resolve()
        : new Promise((r) => idleWaiters.push(r));
    },
    async close() {
      closed = true;
      queue.length = 0;
      wake(spaceWaiters);
      spaceWaiters = [];
      if (running > 0 || aside > 0) await new Promise<void>((r) => idleWaiters.push(r));
    },
    get stats() {
      return { running, queued: queue.length, aside };
    },
  };
}
