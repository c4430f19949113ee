import { Session } from 'node:inspector/promises';
import { performance } from 'node:perf_hooks';
import { Counter, type Registry } from 'prom-client';
import type { Logger } from '@kg/logger';

/** What the reducer reads and does; the defaults are the process's own (tests pass their own). */
export interface MemoryProbe {
  /** Resident set size, bytes. */
  rss(): number;
  /** Share of the time since the previous call that the event loop was busy (0-1). */
  busy(): number;
  /** A full garbage collection that also hands V8's emptied pages back to the system. */
  collect(): Promise<void>;
}

export interface MemoryReducerOptions {
  /** How often the process is looked at, ms (0: never). */
  intervalMs: number;
  /** The event loop was busy less than this share of the last interval: the process is idle. */
  idleBelow?: number;
  /** RSS grown this much since the last reduction (or the start) makes one worth its pause. */
  minGrowthBytes?: number;
  logger?: Logger;
  /** Counts reductions and the bytes they handed back (`kg_memory_reductions_total`, `kg_memory_reduced_bytes_total`). */
  registry?: Registry;
  probe?: MemoryProbe;
}

/**
 * Everything V8 holds that it can give back: the inspector's "collect garbage" (a full,
 * compacting collection that also releases the pages it emptied), in process, no port opened.
 * A major `gc()` does not release them: after bench:busy the embedded server stayed at 864 MiB
 * RSS through one, and went to 564 MiB through this (docs/benchmarks.md).
 */
export async function collectAllGarbage(): Promise<void> {
  const session = new Session();
  session.connect();
  try {
    await session.post('HeapProfiler.collectGarbage');
  } finally {
    session.disconnect();
  }
}

const processProbe = (): MemoryProbe => {
  let last = performance.eventLoopUtilization();
  return {
    rss: () => process.memoryUsage.rss(),
    busy() {
      const now = performance.eventLoopUtilization();
      const since = performance.eventLoopUtilization(now, last);
      last = now;
      return since.utilization;
    },
    collect: collectAllGarbage,
  };
};

/**
 * After a busy spell (an import, a burst of requests) V8 keeps the heap it grew to: the
 * embedded server ended bench:busy at 850-900 MiB RSS, ~300 MiB of it emptied heap pages.
 * V8 gives them back only when it is told the process is idle. This looks every `intervalMs`
 * and, when the event loop was idle over the interval (busy < `idleBelow`) and RSS has grown
 * by `minGrowthBytes` since the last reduction, collects everything (a pause of 100-160 ms
 * on that server, taken while nobody was being served). Growth that is not garbage (the
 * database's pages) costs one collection, then becomes the new baseline.
 */
export function startMemoryReducer(options: MemoryReducerOptions): { stop(): void } {
  if (options.intervalMs <= 0) return { stop() {} };
  const idleBelow = options.idleBelow ?? 0.25;
  const minGrowth = options.minGrowthBytes ?? 64 * 2 ** 20;
  const probe = options.probe ?? processProbe();
  // Without a registry the counters count for nobody (registered nowhere).
  const registers = options.registry ? [options.registry] : [];
  const reductions = new Counter({
    name: 'kg_memory_reductions_total',
    help: 'Full garbage collections run by the idle memory reducer',
    registers,
  });
  const released = new Counter({
    name: 'kg_memory_reduced_bytes_total',
    help: 'Resident bytes the idle memory reducer handed back to the system',
    registers,
  });
  let baseline = probe.rss();
  let running = false;
  probe.busy(); // the first interval starts now
  const timer = setInterval(() => {
    const busy = probe.busy();
    const before = probe.rss();
    if (running || busy >= idleBelow || before - baseline < minGrowth) return;
    running = true;
    const started = performance.now();
    probe
      .collect()
      .then(
        () => {
          baseline = probe.rss();
          reductions.inc();
          released.inc(Math.max(0, before - baseline));
          options.logger?.debug(
            { rssBefore: before, rssAfter: baseline, ms: Math.round(performance.now() - started) },
            'idle memory reduced',
          );
        },
        (err: unknown) => options.logger?.warn({ err }, 'idle memory reduction failed'),
      )
      .finally(() => {
        running = false;
        probe.busy(); // the collection's own pause is not the next interval's work
      });
  }, options.intervalMs);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
