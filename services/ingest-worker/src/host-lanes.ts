import type { Aside, WorkPool } from './pool';
import type { RunJob } from './run-types';

export type Submitted = 'accepted' | 'duplicate' | 'closed';
type Task = (aside: Aside) => Promise<void>;

export interface HostLanes {
  /**
   * Hands a run to the work pool, or parks it in its host's lane while `perHost` runs of that
   * host are in the pool; a run without a host goes to the pool at once. Waits only while
   * `parkedLimit` runs are parked (the bus consumer then stops taking messages) or the pool
   * is full. A run already parked under `key` is replaced by the later one (a newer run of
   * the same capture): 'duplicate'. Runs are keyed by capture.
   */
  submit(job: RunJob, host: string | undefined, task: Task): Promise<Submitted>;
  /** The runs parked now (the sweeper tells the captures service they wait here). */
  parked(): RunJob[];
  /** Drops the parked runs (their captures stay pending; the sweeper queues them again). */
  close(): void;
  readonly stats: { parked: number; hosts: number };
}

interface Parked {
  job: RunJob;
  task: Task;
}

/**
 * Per-host lanes in front of the work pool, so a flood of one host's captures (a bookmark
 * import) holds nobody else's: at most `perHost` runs of one host are in the pool at once (the
 * fetch stage's politeness lets no more through anyway), the rest wait here in order, taken
 * from the bus (its messages acknowledged) but neither claimed nor holding a place. Parked runs
 * are only in this process's memory: the sweeper tells the captures service they wait here
 * (pipeline.waiting), so they are not re-queued meanwhile; a worker that stops leaves their
 * captures `pending`, and a sweeper queues them again (INGEST_SWEEP_AFTER_MS).
 */
export function createHostLanes(opts: { pool: WorkPool; perHost: number; parkedLimit: number }): HostLanes {
  const inPool = new Map<string, number>();
  const lanes = new Map<string, Parked[]>();
  const parked = new Map<string, Parked>();
  let closed = false;
  let roomWaiters: (() => void)[] = [];

  const wakeRoom = () => {
    const waiters = roomWaiters;
    roomWaiters = [];
    for (const w of waiters) w();
  };

  function admit(host: string, key: string, task: Task): Promise<Submitted> {
    inPool.set(host, (inPool.get(host) ?? 0) + 1);
    return opts.pool
      .submit(key, async (aside) => {
        try {
          await task(aside);
        } finally {
          left(host);
        }
      })
      .then((r) => {
        if (r !== 'accepted') left(host);
        return r;
      });
  }

  /** A run of `host` left the pool: the next one parked for it goes in. */
  function left(host: string) {
    const n = (inPool.get(host) ?? 1) - 1;
    if (n > 0) inPool.set(host, n);
    else inPool.delete(host);
    const lane = lanes.get(host);
    const next = lane?.shift();
    if (!lane || !next) return;
    if (lane.length === 0) lanes.delete(host);
    parked.delete(next.job.capture_id);
    wakeRoom();
    if (!closed) void admit(host, next.job.capture_id, next.task);
  }

  return {
    async submit(job, host, task) {
      const key = job.capture_id;
      if (closed) return 'closed';
      if (!host) return opts.pool.submit(key, task);
      for (;;) {
        const already = parked.get(key);
        if (already) {
          already.job = job;
          already.task = task;
          return 'duplicate';
        }
        if (closed) return 'closed';
        if (parked.size < opts.parkedLimit) break;
        await new Promise<void>((r) => roomWaiters.push(r));
      }
      if ((inPool.get(host) ?? 0) < opts.perHost) return admit(host, key, task);
      const entry = { job, task };
      parked.set(key, entry);
      const lane = lanes.get(host);
      if (lane) lane.push(entry);
      else lanes.set(host, [entry]);
      return 'accepted';
    },
    parked: () => [...parked.values()].map((p) => p.job),
    close() {
      closed = true;
      lanes.clear();
      parked.clear();
      wakeRoom();
    },
    get stats() {
      return { parked: parked.size, hosts: lanes.size };
    },
  };
}
