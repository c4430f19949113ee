import { Worker } from 'node:worker_threads';
import { summarize, type Summary } from '../graph/stats';
import { credentials } from '../http/tenant';
import type { Target } from './servers';

/** A tenant as the bench drives it: the API base and one API key (it outlives the 15-minute access token). */
export interface Tenant {
  name: string;
  api: string;
  authorization: string;
}

export interface Item {
  id: string;
  title: string;
  content: string;
  query: string;
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Answers by status: '200', '201', '429', '5xx' (any), 'no answer' (a connection error), other codes as they are. */
export type Tally = Record<string, number>;

export function count(tally: Tally, status: number) {
  const key = status === 0 ? 'no answer' : status >= 500 ? '5xx' : String(status);
  tally[key] = (tally[key] ?? 0) + 1;
}

/** 5xx and no answer at all: what the targets allow none of. */
export const failures = (tally: Tally) => (tally['5xx'] ?? 0) + (tally['no answer'] ?? 0);

export async function signedInTenant(target: Target, name: string): Promise<Tenant> {
  const c = await credentials(target, `noisy-${name}`);
  return { name, api: `${target.baseUrl}/api/v1`, authorization: c.apiKey };
}

interface Answer {
  status: number;
  ms: number;
  headers: Headers | null;
  body: string;
}

/** One request, timed (client side, body read); a connection error is status 0. */
async function call(t: Tenant, path: string, init: RequestInit = {}): Promise<Answer> {
  const t0 = performance.now();
  try {
    const res = await fetch(`${t.api}${path}`, {
      ...init,
      headers: { authorization: t.authorization, ...(init.headers as Record<string, string> | undefined) },
    });
    const body = await res.text();
    return { status: res.status, ms: performance.now() - t0, headers: res.headers, body };
  } catch (err) {
    return { status: 0, ms: performance.now() - t0, headers: null, body: String(err) };
  }
}

/** A setup call: waits out a 429 (its Retry-After) and tries again; anything but 2xx throws. */
async function setupCall(t: Tenant, path: string, init: RequestInit = {}): Promise<string> {
  for (;;) {
    const a = await call(t, path, init);
    if (a.status === 429) {
      await sleep(1000 * Number(a.headers?.get('retry-after') ?? 1));
      continue;
    }
    if (a.status < 200 || a.status >= 300) throw new Error(`${init.method ?? 'GET'} ${path}: ${a.status} ${a.body}`);
    return a.body;
  }
}

export const semantic = (t: Tenant, query: string) =>
  call(t, `/nodes?mode=semantic&per_page=20&query=${encodeURIComponent(query)}`);

/** Writes `items` as the tenant's nodes (4 at a time); their ids in order. */
export async function addNodes(t: Tenant, items: Item[]): Promise<string[]> {
  const ids: string[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      while (next < items.length) {
        const i = next++;
        const body = await setupCall(t, '/nodes', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ title: items[i]!.title, content: items[i]!.content }),
        });
        ids[i] = (JSON.parse(body) as { id: string }).id;
      }
    }),
  );
  return ids;
}

/** Until a semantic search for each probe item's own text finds it (the indexer caught up), or `timeoutMs`. */
export async function waitIndexed(t: Tenant, probes: Array<{ item: Item; id: string }>, timeoutMs = 600_000) {
  const t0 = performance.now();
  const left = [...probes];
  while (left.length > 0) {
    const { item, id } = left[0]!;
    const body = await setupCall(
      t,
      `/nodes?mode=semantic&per_page=20&query=${encodeURIComponent(`${item.title}. ${item.content}`.slice(0, 500))}`,
    );
    if ((JSON.parse(body) as { data: Array<{ id: string }> }).data.some((n) => n.id === id)) left.shift();
    else if (performance.now() - t0 > timeoutMs)
      throw new Error(`${t.name}: node ${id} not indexed after ${timeoutMs} ms`);
    else await sleep(2000);
  }
}

/** Query texts never asked before (a counter appended), so the embedding cache never answers. */
export function distinctQueries(items: Item[], tag: string) {
  let n = 0;
  return () => {
    const item = items[n % items.length]!;
    return `${item.query} (${tag} ${n++})`;
  };
}

export interface Measured {
  /** Latency (ms) of the 200 answers. */
  latency: Summary;
  tally: Tally;
  seconds: number;
}

/**
 * Tenant B: one client, a semantic search at most every `intervalMs` (a person, or a small
 * integration, well inside any per-tenant limit), `count` times or until `until()` is true.
 */
export async function probe(
  b: Tenant,
  next: () => string,
  opts: { count?: number; until?: () => boolean; intervalMs: number; min?: number },
): Promise<Measured> {
  const samples: number[] = [];
  const tally: Tally = {};
  const t0 = performance.now();
  for (let n = 0; opts.count !== undefined ? n < opts.count : !opts.until!() || n < (opts.min ?? 0); n++) {
    const started = performance.now();
    const a = await semantic(b, next());
    count(tally, a.status);
    if (a.status === 200) samples.push(a.ms);
    await sleep(Math.max(0, started + opts.intervalMs - performance.now()));
  }
  return { latency: summarize(samples), tally, seconds: (performance.now() - t0) / 1000 };
}

export interface Flooded {
  clients: number;
  requests: number;
  seconds: number;
  rps: number;
  tally: Tally;
  /** 429 answers that carried Retry-After, and RateLimit / RateLimit-Policy (IETF draft headers). */
  with_retry_after: number;
  with_ratelimit_headers: number;
  /** Latency (ms) of A's answers by kind. */
  latency_200: Summary;
  latency_429: Summary;
}

/** Tenant A: `clients` concurrent clients, each sending semantic searches back to back until stopped. */
export function flood(a: Tenant, clients: number, next: () => string) {
  let stopped = false;
  const tally: Tally = {};
  const ok: number[] = [];
  const limited: number[] = [];
  let retryAfter = 0;
  let rateLimit = 0;
  const t0 = performance.now();
  const done = Promise.all(
    Array.from({ length: clients }, async () => {
      while (!stopped) {
        const r = await semantic(a, next());
        count(tally, r.status);
        if (r.status === 200) ok.push(r.ms);
        if (r.status === 429) {
          limited.push(r.ms);
          if (r.headers?.get('retry-after')) retryAfter++;
          if (r.headers?.get('ratelimit') && r.headers.get('ratelimit-policy')) rateLimit++;
        }
        // A connection refused answers at once: do not spin.
        if (r.status === 0) await sleep(100);
      }
    }),
  );
  return {
    async stop(): Promise<Flooded> {
      stopped = true;
      await done;
      const seconds = (performance.now() - t0) / 1000;
      const requests = Object.values(tally).reduce((x, y) => x + y, 0);
      return {
        clients,
        requests,
        seconds,
        rps: requests / seconds,
        tally,
        with_retry_after: retryAfter,
        with_ratelimit_headers: rateLimit,
        latency_200: summarize(ok),
        latency_429: summarize(limited),
      };
    },
  };
}

/** `flood` in a worker thread (bench/noisy/flood-worker.ts), so A's client work stays off B's event loop. */
export function floodInWorker(a: Tenant, clients: number, items: Item[]) {
  const worker = new Worker(new URL('./flood-worker.ts', import.meta.url), {
    workerData: { tenant: a, clients, items },
  });
  const failed = new Promise<never>((_, reject) => worker.once('error', reject));
  failed.catch(() => {}); // reported by stop()
  return {
    async stop(): Promise<Flooded> {
      const answer = new Promise<Flooded>((resolve) => worker.once('message', resolve));
      worker.postMessage('stop');
      const result = await Promise.race([answer, failed]);
      await worker.terminate();
      return result;
    },
  };
}

/** POST /captures/upload with a real multipart body; the capture id when it was accepted. */
export async function upload(
  t: Tenant,
  filename: string,
  bytes: Buffer,
): Promise<{ status: number; id?: string; body: string }> {
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(bytes)], { type: 'application/octet-stream' }), filename);
  const a = await call(t, '/captures/upload', { method: 'POST', body: form });
  const id = a.status === 201 ? (JSON.parse(a.body) as { id: string }).id : undefined;
  return { status: a.status, ...(id ? { id } : {}), body: a.body.slice(0, 300) };
}

/** Polls the capture until it ends (processed or failed), `timeoutMs` passes, or the server stops answering. */
export async function captureEnd(t: Tenant, id: string, timeoutMs: number, tally: Tally) {
  const t0 = performance.now();
  let last = { status: 'unknown', error: null as string | null };
  let unanswered = 0;
  while (performance.now() - t0 < timeoutMs) {
    const a = await call(t, `/captures/${id}`);
    count(tally, a.status);
    if (a.status === 200) {
      unanswered = 0;
      last = JSON.parse(a.body) as typeof last;
      if (last.status === 'processed' || last.status === 'failed') break;
    } else if (a.status === 0 && ++unanswered >= 20) {
      last = { status: 'server gone', error: a.body };
      break;
    }
    await sleep(500);
  }
  return { status: last.status, error: last.error, seconds: (performance.now() - t0) / 1000 };
}
