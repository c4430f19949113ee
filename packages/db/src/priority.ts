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

/** Background operations run back to back for this long at most before the event loop turns. */
export const YIELD_AFTER_MS = 4;

/** Interactive operations granted in a row while background work waits, before one of it goes. */
export const INTERACTIVE_BURST = 4;

/**
 * One operation at a time, requests first: an operation waits while another runs; when one
 * ends, the next is the oldest interactive one, or the oldest background one when none is
 * waiting, or after INTERACTIVE_BURST interactive ones in a row (background work is slowed
 * by requests, never stopped). Background operations that have run back to back for
 * YIELD_AFTER_MS let the event loop turn before the next, so requests that arrived meanwhile
 * are read and can go first.
 */
export class PriorityGate {
  private busy = false;
  private readonly interactive: (() => void)[] = [];
  private readonly background: (() => void)[] = [];
  private burst = 0;
  /** When the event loop last turned between background operations. */
  private since = 0;

  async run<T>(op: () => Promise<T>, bg = isBackground()): Promise<T> {
    if (this.busy) await new Promise<void>((r) => (bg ? this.background : this.interactive).push(r));
    else this.busy = true;
    try {
      return await op();
    } finally {
      this.next();
    }
  }

  get waiting(): { interactive: number; background: number } {
    return { interactive: this.interactive.length, background: this.background.length };
  }

  private next(): void {
    if (this.interactive.length > 0 && (this.background.length === 0 || this.burst < INTERACTIVE_BURST))
      return this.grant(false);
    if (this.background.length === 0) {
      this.busy = false;
      this.burst = 0;
      return;
    }
    // Background statements handed over promise to promise would run back to back on this
    // thread (PGlite's too), and a request arriving meanwhile would not even be read before the
    // queue is empty: once they have had the thread for YIELD_AFTER_MS, the event loop turns
    // (the gate still held) and the choice is made then, among whatever waits by that time.
    const now = performance.now();
    if (now - this.since < YIELD_AFTER_MS) return this.grant(true);
    setImmediate(() => {
      this.since = performance.now();
      const takeBackground =
        this.background.length > 0 && (this.interactive.length === 0 || this.burst >= INTERACTIVE_BURST);
      this.grant(takeBackground);
    });
  }

  private grant(background: boolean): void {
    const go = background ? this.background.shift() : this.interactive.shift();
    this.burst = background ? 0 : this.burst + 1;
    go!();
  }
}
