import { Agent, request } from 'undici';

/**
 * Longest wait for a connection to a peer (a connection on a cluster's network takes well under
 * a millisecond): the address of a pod that is gone answers nothing, and a call to one of a
 * service's replicas (client.ts, `replicated`) then goes to the next one instead of waiting for
 * the whole call's timeout.
 */
const CONNECT_TIMEOUT_MS = 2_000;

/**
 * Service-to-service HTTP through undici's `request` on one keep-alive pool per process.
 * Node's global `fetch` (undici's WHATWG layer: web streams, Response objects) cost the
 * gateway ~400 µs of CPU per call, ten times a whole `/auth/me` request (docs/benchmarks.md).
 */
const pool = new Agent({ keepAliveTimeout: 4_000, connections: 64, connect: { timeout: CONNECT_TIMEOUT_MS } });

export interface PeerResponse {
  ok: boolean;
  status: number;
  /** The body as text. */
  text: string;
}

export interface PeerRequest {
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body?: string;
  timeoutMs: number;
}

/** One request to a peer service, its whole body read as text. Network failures and timeouts reject. */
export async function peerRequest(url: string, init: PeerRequest): Promise<PeerResponse> {
  const res = await request(url, {
    method: init.method,
    headers: init.headers,
    body: init.body,
    dispatcher: pool,
    signal: AbortSignal.timeout(init.timeoutMs),
  });
  const text = await res.body.text();
  return { ok: res.statusCode >= 200 && res.statusCode < 300, status: res.statusCode, text };
}

/**
 * The same request as the `fetch` tRPC's links take: they read `ok` and `json()` only.
 * A body that is not JSON rejects in `json()`, as a fetch Response does.
 */
export function peerFetch(timeoutMs: number) {
  return async (url: unknown, init?: { method?: string; headers?: unknown; body?: unknown }) => {
    const res = await peerRequest(String(url), {
      method: (init?.method as PeerRequest['method'] | undefined) ?? 'GET',
      headers: (init?.headers ?? {}) as Record<string, string>,
      body: typeof init?.body === 'string' ? init.body : undefined,
      timeoutMs,
    });
    return { ok: res.ok, status: res.status, json: async () => JSON.parse(res.text) as unknown };
  };
}
