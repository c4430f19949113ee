import { readdirSync, readFileSync } from 'node:fs';
import { rssMiB } from '../search/servers';

/** `root` and every process below it (Linux /proc: each thread's `children` list), while they run. */
export function processTree(root: number): number[] {
  const out: number[] = [];
  const visit = (pid: number) => {
    out.push(pid);
    let tasks: string[];
    try {
      tasks = readdirSync(`/proc/${pid}/task`);
    } catch {
      return; // gone meanwhile
    }
    for (const task of tasks) {
      try {
        for (const child of readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').split(' '))
          if (child.trim()) visit(Number(child));
      } catch {
        // a thread that ended meanwhile
      }
    }
  };
  visit(root);
  return out;
}

/** Resident memory (MiB) of the trees under `roots`, summed; processes that are gone count 0. */
export function treeRssMiB(roots: number[]): number {
  let sum = 0;
  for (const root of roots)
    for (const pid of processTree(root)) {
      const mib = rssMiB(pid);
      if (Number.isFinite(mib)) sum += mib;
    }
  return sum;
}

export interface RssSample {
  /** Milliseconds since the sampler started. */
  at: number;
  /** MiB by process group, and `total` (all groups). */
  mib: Record<string, number>;
}

/**
 * Samples the resident memory of each group's process trees every `everyMs` (groups: name →
 * root pids, asked once at the start) until stopped; returns the samples, the first being the
 * baseline.
 */
export function sampleRss(groups: Record<string, number[]>, everyMs = 100) {
  const t0 = performance.now();
  const samples: RssSample[] = [];
  const take = () => {
    const mib: Record<string, number> = {};
    let total = 0;
    for (const [name, roots] of Object.entries(groups)) total += mib[name] = treeRssMiB(roots);
    samples.push({ at: performance.now() - t0, mib: { ...mib, total } });
  };
  take();
  const timer = setInterval(take, everyMs);
  return {
    /** Milliseconds since the sampler started. */
    now: () => performance.now() - t0,
    stop(): RssSample[] {
      clearInterval(timer);
      take();
      return samples;
    },
  };
}

/** Per group: the highest sample within [from, to] (ms) less the baseline (the first sample). */
export function peakGrowth(samples: RssSample[], from = 0, to = Infinity): Record<string, number> {
  const base = samples[0]!.mib;
  const growth: Record<string, number> = {};
  for (const s of samples.filter((x) => x.at >= from && x.at <= to))
    for (const [name, mib] of Object.entries(s.mib)) growth[name] = Math.max(growth[name] ?? 0, mib - base[name]!);
  return growth;
}

/** Whether every root pid of every group still runs (a process killed by a bomb does not). */
export function allRunning(groups: Record<string, number[]>): boolean {
  return Object.values(groups).every((roots) => roots.every((pid) => Number.isFinite(rssMiB(pid))));
}
