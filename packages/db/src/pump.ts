import { inBackground } from './priority';

export interface Pump {
  /** A pass now, or, with one in flight, one more right after it (wakes coalesce into one). */
  run(): Promise<number>;
  /** Waits for the pass in flight, if any. */
  settled(): Promise<void>;
  /** Starts: a pass now, then each pass is followed by the next after `nextInMs`. */
  start(): void;
  /** Stops the timer and waits for the pass in flight; a wake after this does nothing. */
  stop(): Promise<void>;
  readonly stopped: boolean;
}

/**
 * A background loop that drains a table (the outbox relay, the import runner, the webhook
 * dispatcher): passes never overlap, as background work (inBackground: on the embedded
 * database requests go first), a failed pass is reported and retried at the next one. After a
 * pass the next one starts at once when something woke the pump meanwhile, else after
 * `nextInMs()` milliseconds (a fixed poll, or until the next item is due; null: wait for a
 * wake). The timer is unref'd, so it never keeps a process alive on its own.
 */
export function createPump(opts: {
  pass: () => Promise<number>;
  onError: (err: unknown) => void;
  nextInMs: () => number | null | Promise<number | null>;
}): Pump {
  let stopped = true;
  let again = false;
  let running: Promise<number> | null = null;
  let timer: NodeJS.Timeout | null = null;

  async function schedule(): Promise<void> {
    // (nextInMs is expected to answer; one that fails is reported and leaves the pump to wakes.)
    const wait = await Promise.resolve()
      .then(opts.nextInMs)
      .catch((err: unknown) => {
        opts.onError(err);
        return null;
      });
    // A wake may have started a pass meanwhile: it schedules when it ends.
    if (stopped || running || wait === null) return;
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => void run(), Math.max(0, wait));
    timer.unref();
  }

  function run(): Promise<number> {
    if (running) {
      again = true;
      return running;
    }
    if (timer) clearTimeout(timer);
    timer = null;
    running = inBackground(opts.pass)
      .catch((err: unknown) => {
        opts.onError(err);
        return 0;
      })
      .finally(() => {
        running = null;
        if (stopped) return;
        if (again) {
          again = false;
          void run();
        } else void schedule();
      });
    return running;
  }

  return {
    run,
    async settled() {
      if (running) await running;
    },
    start() {
      if (!stopped) return;
      stopped = false;
      void run();
    },
    async stop() {
      stopped = true;
      again = false;
      if (timer) clearTimeout(timer);
      timer = null;
      if (running) await running;
    },
    get stopped() {
      return stopped;
    },
  };
}
