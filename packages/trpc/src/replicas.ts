import { hash } from 'node:crypto';

/** How a call picks among a service's replicas. */
export type Routing = 'tenant' | 'round-robin';

/**
 * The replicas of one service, and the order in which a call tries them. With `tenant`
 * routing a tenant's calls go to the same replica, by rendezvous (highest random weight)
 * hashing over the live replicas, so each replica keeps only its share of the tenants'
 * state warm; when a replica joins or leaves, only the tenants it gains or loses move.
 */
export interface ReplicaSet {
  /** Base URLs to try, best first: the key's owner, then the others (replicas lately unreachable last). */
  order(key: string | null): string[];
  /** A call could not reach `url`: it goes last in every order for a while. */
  unreachable(url: string): void;
  /** The replicas known now. */
  urls(): readonly string[];
}

export interface ReplicaSetOptions {
  /** The live replicas' base URLs, read at every call (a static list, or DNS answers kept fresh). */
  urls: () => readonly string[];
  routing: Routing;
  /** How long an unreachable replica goes last (default 5 s). */
  downForMs?: number;
  now?: () => number;
}

/** A 48-bit score of `key` on `url`: the highest score owns the key. */
const score = (key: string, url: string) => parseInt(hash('sha1', `${url}\u0000${key}`).slice(0, 12), 16);

/** `urls` ordered by their rendezvous score for `key`, highest first (ties: by URL). */
export function rendezvousOrder(key: string, urls: readonly string[]): string[] {
  return urls
    .map((url) => ({ url, s: score(key, url) }))
    .sort((a, b) => b.s - a.s || (a.url < b.url ? -1 : 1))
    .map((e) => e.url);
}

export function createReplicaSet(opts: ReplicaSetOptions): ReplicaSet {
  const downForMs = opts.downForMs ?? 5_000;
  const now = opts.now ?? Date.now;
  const downUntil = new Map<string, number>();
  let turn = 0;
  const isDown = (url: string) => {
    const until = downUntil.get(url);
    if (until === undefined) return false;
    if (until > now()) return true;
    downUntil.delete(url);
    return false;
  };
  return {
    urls: opts.urls,
    order(key) {
      const urls = opts.urls();
      let ordered: string[];
      if (opts.routing === 'tenant' && key !== null) ordered = rendezvousOrder(key, urls);
      else {
        // Calls for no tenant (and every call with round-robin) take the replicas in turn.
        const start = urls.length === 0 ? 0 : turn++ % urls.length;
        ordered = [...urls.slice(start), ...urls.slice(0, start)];
      }
      if (downUntil.size === 0) return ordered;
      return [...ordered.filter((u) => !isDown(u)), ...ordered.filter((u) => isDown(u))];
    },
    unreachable(url) {
      downUntil.set(url, now() + downForMs);
    },
  };
}

/** Network errors that prove a request never reached the peer: a call may go to another replica, even a mutation. */
const NOT_SENT = new Set([
  'ECONNREFUSED',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'UND_ERR_CONNECT_TIMEOUT',
]);

/** Whether `err` (or an error it wraps) is a connection that could not be made. */
export function isConnectFailure(err: unknown): boolean {
  for (let e = err, depth = 0; e && typeof e === 'object' && depth < 6; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && NOT_SENT.has(code)) return true;
    e = (e as { cause?: unknown }).cause;
  }
  return false;
}
