/**
 * Politeness of the fetch stage towards one host, shared by every worker replica through the
 * kv port (Redis in the distributed mode, in process in the embedded one): at most
 * `maxPerHost` fetches of one host at once, and request starts to one host at least
 * `intervalMs` apart. A fetch waits for its turn (it is never failed for waiting).
 *
 * The interval: time is cut into slots of `intervalMs`; a fetch claims the first free slot
 * starting after now (`setIfAbsent` on the host's slot key: of two claims, one wins) and
 * is scheduled at that slot's beginning, so starts fall on distinct slot boundaries. Right
 * before its request is sent (`turn.start()`), a fetch records when it really started, and one
 * that finds the previous start less than an interval ago (that one was sent late: a timer, a
 * busy process) waits the rest: at least one interval between starts, less only by the clock
 * skew between replicas.
 *
 * `enter` holds the long waits (a concurrency slot for as long as the host is busy, then the
 * scheduled time), so the worker runs it outside its places; `start` rarely waits at all.
 */
import { randomUUID } from 'node:crypto';
import type { ConcurrencySlot, KvStore } from '@kg/kv';

export interface HostGateOptions {
  kv: KvStore;
  /** Fetches of one host at once, across replicas (FETCH_MAX_PER_HOST). */
  maxPerHost: number;
  /** Least time between two request starts to one host, ms; 0: none (FETCH_HOST_INTERVAL_MS). */
  intervalMs: number;
  /** A concurrency slot whose holder died frees itself this long after the host's window opened. */
  leaseSeconds: number;
  now?: () => number;
}

/** A turn at a host: `start` right before the request, `release` when the fetch is over (success or not). */
export interface HostTurn {
  start(): Promise<void>;
  release(): Promise<void>;
}

export interface HostGate {
  /** Waits until a fetch of `host` may start (a slot of its concurrency, then its scheduled time). */
  enter(host: string): Promise<HostTurn>;
}

/** Slots looked at per claim before waiting an interval and looking again. */
const LOOKAHEAD = 64;

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, Math.max(0, ms)));

export function createHostGate(opts: HostGateOptions): HostGate {
  const now = opts.now ?? Date.now;
  const limiter = opts.kv.concurrencyLimiter({
    name: 'fetch-host',
    max: opts.maxPerHost,
    leaseSeconds: opts.leaseSeconds,
  });
  // How often a fetch waiting for a concurrency slot asks again (with jitter, so waiters spread out).
  const pollMs = Math.min(250, Math.max(25, opts.intervalMs / 2));

  async function concurrencySlot(host: string): Promise<ConcurrencySlot> {
    for (;;) {
      const slot = await limiter.acquire(host);
      if (slot) return slot;
      await sleep(pollMs * (0.5 + Math.random()));
    }
  }

  const ttlSeconds = (until: number) => Math.ceil((until - now()) / 1000) + 1;

  async function scheduled(host: string): Promise<void> {
    const interval = opts.intervalMs;
    const token = randomUUID();
    for (;;) {
      const t = now();
      const first = Math.ceil(t / interval);
      let claimed = -1;
      for (let k = first; k < first + LOOKAHEAD && claimed < 0; k++)
        if (
          (await opts.kv.setIfAbsent(`fetch-host-turn:${host}:${k}`, token, ttlSeconds((k + 1) * interval))) === token
        )
          claimed = k;
      if (claimed < 0) {
        await sleep(interval);
        continue;
      }
      return sleep(claimed * interval - now());
    }
  }

  /** Right before the request: after the previous start by an interval at least; records this start. */
  async function started(host: string): Promise<void> {
    const interval = opts.intervalMs;
    const last = Number((await opts.kv.get(`fetch-host-last:${host}`)) ?? NaN);
    if (now() - last < interval) await sleep(interval - (now() - last));
    await opts.kv.set(`fetch-host-last:${host}`, String(now()), ttlSeconds(now() + interval));
  }

  return {
    async enter(rawHost) {
      const host = rawHost.toLowerCase();
      const slot = await concurrencySlot(host);
      try {
        if (opts.intervalMs > 0) await scheduled(host);
      } catch (err) {
        await slot.release();
        throw err;
      }
      return {
        start: async () => {
          if (opts.intervalMs > 0) await started(host);
        },
        release: () => slot.release(),
      };
    },
  };
}
