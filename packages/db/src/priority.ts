import { AsyncLocalStorage } from 'node:async_hooks';

const background = new AsyncLocalStorage<boolean>();

/**
 * Runs `fn` as background work (a bus consumer, the pipeline, an import, a periodic job): on
 * the embedded database its statements wait behind those of requests someone is waiting for
 * (prioritise). Everything `fn` starts, awaits or schedules inherits the mark.
 */
export function inBackground<T>(fn: () => T): T {
  return background.run(true, fn);
}

/** Whether the caller runs as background work (inBackground). */
export const isBackground = (): boolean => background.getStore() === true;

/**
 * Background operations run back to back for this long at most before the event loop turns:
 * a request arriving meanwhile (even one that needs no statement, `/healthz`) waits about this
 * long. In bench:busy's busy phase the event consumers' statements held 70 % of the thread;
 * `/healthz` p95 was 6.6-9.3 ms with 4, 5.2 with 1 and 3.9 with 0.25 (docs/benchmarks.md).
 */
export const YIELD_AFTER_MS = 0.25;

/** Interactive operations granted in a row while background work waits, before one of it goes. */
export const INTERACTIVE_BURST = 4;

/** An operation waiting for the gate: what lets it go, and whether it needs the gate alone. */
interface Waiter {
  go: () => void;
  exclusive: boolean;
}

/**
 * Operations in priority order, `capacity` at a time (1 unless told more), requests first:
 * an operation waits while the gate is full; when one ends, the next is the oldest interactive
 * one, or the oldest background one when none is waiting, or after INTERACTIVE_BURST
 * interactive ones in a row (background work is slowed by requests, never stopped). An
 * exclusive operation (a transaction) runs alone: it waits for those running to end, and the
 * ones behind it wait for it. Background operations that have run back to back for
 * YIELD_AFTER_MS let the event loop turn before the next, so requests that arrived meanwhile
 * are read and can go first.
 */
export class PriorityGate {
  private running = 0;
  private exclusive = false;
  private readonly interactive: Waiter[] = [];
  private readonly background: Waiter[] = [];
  private burst = 0;
  /** When the event loop last turned between background operations. */
  private since = 0;
  /** A turn of the event loop is awaited before the next background operation. */
  private yielding = false;

  constructor(private readonly capacity = 1) {}

  async run<T>(op: () => Promise<T>, bg = isBackground(), exclusive = false): Promise<T> {
    if (this.interactive.length + this.background.length === 0 && !this.yielding && this.fits(exclusive))
      this.enter(exclusive);
    else await new Promise<void>((go) => (bg ? this.background : this.interactive).push({ go, exclusive }));
    try {
      return await op();
    } finally {
      this.running -= 1;
      if (this.running === 0) this.exclusive = false;
      this.next();
    }
  }

  get waiting(): { interactive: number; background: number } {
    return { interactive: this.interactive.length, background: this.background.length };
  }

  private fits(exclusive: boolean): boolean {
    return exclusive ? this.running === 0 : !this.exclusive && this.running < this.capacity;
  }

  private enter(exclusive: boolean): void {
    this.running += 1;
    this.exclusive = exclusive;
  }

  /** Which queue goes next by priority, whether or not its head fits yet. */
  private pick(): 'interactive' | 'background' | null {
    if (this.interactive.length > 0 && (this.background.length === 0 || this.burst < INTERACTIVE_BURST))
      return 'interactive';
    return this.background.length > 0 ? 'background' : null;
  }

  private next(): void {
    while (!this.yielding) {
      const queue = this.pick();
      if (queue === null) {
        if (this.running === 0) this.burst = 0;
        return;
      }
      // The head waits for room (an exclusive one for the gate to empty); nobody passes it.
      if (!this.fits((queue === 'background' ? this.background : this.interactive)[0]!.exclusive)) return;
      if (queue === 'interactive') {
        this.grant(false);
        continue;
      }
      // Background statements handed over promise to promise would run back to back on this
      // thread, and a request arriving meanwhile would not even be read before the queue is
      // empty: once they have had the thread for YIELD_AFTER_MS, the event loop turns and the
      // choice is made then, among whatever waits by that time.
      if (performance.now() - this.since < YIELD_AFTER_MS) {
        this.grant(true);
        continue;
      }
      this.yielding = true;
      setImmediate(() => {
        this.yielding = false;
        this.since = performance.now();
        this.next();
      });
      return;
    }
  }

  private grant(background: boolean): void {
    const waiter = (background ? this.background : this.interactive).shift()!;
    this.burst = background ? 0 : this.burst + 1;
    this.enter(waiter.exclusive);
    waiter.go();
  }
}
