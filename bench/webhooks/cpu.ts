import { readFileSync } from 'node:fs';

/** Linux's USER_HZ: /proc times are in these ticks. */
const TICKS_PER_S = 100;

/** CPU seconds (user + system) a process has used so far; NaN when it is gone. */
export function cpuSeconds(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // After "pid (comm) ", fields[0] is the 3rd field (state): utime is the 14th, stime the 15th.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_S;
  } catch {
    return Number.NaN;
  }
}

/**
 * Measures the CPU the named processes use from now until `stop()`, as a share of one core
 * (1.0: a core busy the whole time; a Node process's JavaScript runs on one).
 */
export function cpuMeter(pids: Record<string, number>) {
  const t0 = performance.now();
  const start = Object.fromEntries(Object.entries(pids).map(([name, pid]) => [name, cpuSeconds(pid)]));
  return {
    stop(): Record<string, number> {
      const wall = (performance.now() - t0) / 1000;
      return Object.fromEntries(
        Object.entries(pids).map(([name, pid]) => [
          name,
          Math.round((100 * (cpuSeconds(pid) - start[name]!)) / wall) / 100,
        ]),
      );
    },
  };
}
