/** Latency samples → percentiles in milliseconds. */
export interface Summary {
  n: number;
  p50: number;
  p95: number;
  p99: number;
  mean: number;
}

export function summarize(samples: number[]): Summary {
  const s = [...samples].sort((a, b) => a - b);
  const at = (q: number) => s[Math.min(s.length - 1, Math.floor(q * s.length))] ?? 0;
  const mean = s.reduce((x, y) => x + y, 0) / Math.max(1, s.length);
  return { n: s.length, p50: at(0.5), p95: at(0.95), p99: at(0.99), mean };
}

/** Runs `fn` for each input (after `warmup` untimed runs) and returns per-call milliseconds. */
export async function time<T>(inputs: T[], fn: (input: T) => Promise<unknown>, warmup = 3): Promise<number[]> {
  for (const input of inputs.slice(0, warmup)) await fn(input);
  const out: number[] = [];
  for (const input of inputs) {
    const t0 = performance.now();
    await fn(input);
    out.push(performance.now() - t0);
  }
  return out;
}

export const fmt = (ms: number) => (ms < 1 ? ms.toFixed(3) : ms < 100 ? ms.toFixed(2) : ms.toFixed(0));
