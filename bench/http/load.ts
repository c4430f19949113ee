import autocannon from 'autocannon';
import { summarize } from '../graph/stats';

export interface Probe {
  name: string;
  /** Paths are rotated request by request. */
  paths: string[];
  authorization?: string;
}

export interface Measured {
  name: string;
  rps: number;
  p50: number;
  p95: number;
  p99: number;
  requests: number;
  /** Answers that were not 2xx (a 429 means the bench's limits were too low; anything else is a bug). */
  failed: number;
}

/**
 * `connections` clients in closed loops for `seconds`, in slices: each `slice()` adds that many
 * seconds of answers to the same samples (no warm-up of its own), `result()` sums them up.
 */
export function sampler(baseUrl: string, probe: Probe, connections: number) {
  let i = 0;
  const samples: number[] = [];
  let seconds = 0;
  let requests = 0;
  let failed = 0;
  const run = (duration: number) =>
    autocannon({
      url: baseUrl,
      connections,
      duration,
      timeout: 30,
      headers: probe.authorization ? { authorization: probe.authorization } : {},
      requests: [{ method: 'GET', setupRequest: (req) => ({ ...req, path: probe.paths[i++ % probe.paths.length]! }) }],
    });
  return {
    /** An untimed run (connections opened, the path's code warm), as `measure` does first. */
    async warm(duration: number) {
      await run(duration);
    },
    async slice(duration: number) {
      const result = await run(duration).on('response', (_c: unknown, _s: number, _b: number, ms: number) =>
        samples.push(ms),
      );
      seconds += duration;
      requests += result.requests.total;
      failed += result.non2xx + result.errors + result.timeouts;
    },
    get seconds() {
      return seconds;
    },
    result(): Measured {
      const s = summarize(samples);
      return { name: probe.name, rps: requests / seconds, p50: s.p50, p95: s.p95, p99: s.p99, requests, failed };
    },
  };
}

/** `connections` clients in closed loops for `seconds` (after a short untimed warm-up). */
export async function measure(baseUrl: string, probe: Probe, connections: number, seconds: number): Promise<Measured> {
  const load = sampler(baseUrl, probe, connections);
  await load.warm(1);
  await load.slice(seconds);
  return load.result();
}

/** One timed GET (ms) and its status. */
export async function timedGet(url: string, authorization: string): Promise<{ ms: number; status: number }> {
  const t0 = performance.now();
  const res = await fetch(url, { headers: { authorization } });
  await res.arrayBuffer();
  return { ms: performance.now() - t0, status: res.status };
}
