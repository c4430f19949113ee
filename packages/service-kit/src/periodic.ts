import { inBackground } from '@kg/db';
import type { Logger } from '@kg/logger';

export interface PeriodicJob<R> {
  /** One pass, now; what the pass returns. */
  runOnce(): Promise<R>;
  /** Runs a pass every `intervalMs` on an unref'd timer; a pass never overlaps the previous one. */
  start(): void;
  /** Stops the timer and waits for a pass in flight. */
  stop(): Promise<void>;
}

/**
 * Background housekeeping of a service (pruning, sweeping): a pass every `intervalMs`, never two
 * at once, as background work (inBackground), a failed pass logged at warn and tried again at
 * the next tick. The timer is unref'd,
 * so it never keeps a process alive on its own.
 */
export function createPeriodicJob<R>(opts: {
  name: string;
  intervalMs: number;
  logger: Logger;
  run: () => Promise<R>;
}): PeriodicJob<R> {
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<unknown> | null = null;
  return {
    runOnce: opts.run,
    start() {
      if (timer) return;
      timer = setInterval(() => {
        if (running) return;
        running = inBackground(opts.run)
          .catch((err: unknown) => opts.logger.warn({ err, job: opts.name }, `${opts.name} failed; will retry`))
          .finally(() => (running = null));
      }, opts.intervalMs);
      timer.unref();
    },
    async stop() {
      if (timer) clearInterval(timer);
      timer = null;
      await running;
    },
  };
}
