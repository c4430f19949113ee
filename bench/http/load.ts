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

/** `connections` clients in closed loops for `seconds` (after a short untimed warm-up). */
export async function measure(baseUrl: string, probe: Probe, connections: number, seconds: number): Promise<Measured> {
  const run = (duration: number, onLatency?: (ms: number) => void) => {
    let i = 0;
    const instance = autocannon({
      url: baseUrl,
      connections,
      duration,
      timeout: 30,
      headers: probe.authorization ? { authorization: probe.authorization } : {},
      requests: [{ method: 'GET', setupRequest: (req) => ({ ...req, path: probe.paths[i++ % probe.paths.length]! }) }],
    });
    if (onLatency)
      instance.on('response', (_client: unknown, _status: number, _bytes: number, ms: number) => onLatency(ms));
    return instance;
  };
  await run(1);
  const samples: number[] = [];
  const result = await run(seconds, (ms) => samples.push(ms));
  const s = summarize(samples);
  return {
    name: probe.name,
    rps: result.requests.total / seconds,
    p50: s.p50,
    p95: s.p95,
    p99: s.p99,
    requests: result.requests.total,
    failed: result.non2xx + result.errors + result.timeouts,
  };
}

/** One timed GET (ms) and its status. */
export async function timedGet(url: string, authorization: string): Promise<{ ms: number; status: number }> {
  const t0 = performance.now();
  const res = await fetch(url, { headers: { authorization } });
  await res.arrayBuffer();
  return { ms: performance.now() - t0, status: res.status };
}
