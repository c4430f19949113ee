import { rateLimited } from '@kg/contracts';

/**
 * What an embedding is for: `interactive` when a person waits on it (semantic and hybrid
 * search, link suggestions, context), `background` when not (the indexer, the ingest worker's
 * similar nodes for proposals).
 */
export type EmbedPriority = 'interactive' | 'background';

/** Queries a tenant may have waiting for the embedder by default (EMBED_QUEUE_PER_TENANT). */
export const EMBED_QUEUE_PER_TENANT = 32;
/** Embeddings run at once by default (EMBED_CONCURRENCY): the local model runs one at a time anyway. */
export const EMBED_CONCURRENCY = 1;
/** While queries wait, every BACKGROUND_EVERY-th start goes to background work, so indexing never stalls. */
export const BACKGROUND_EVERY = 4;
/** Retry-After of a query refused because its tenant's queue is full: a query takes milliseconds. */
const RETRY_AFTER_SECONDS = 1;

export interface EmbedderQueueOptions {
  /** Jobs running at once (default EMBED_CONCURRENCY). */
  concurrency?: number;
  /** Interactive jobs a tenant may have waiting; one more is refused with a 429 (default EMBED_QUEUE_PER_TENANT). */
  maxQueuedPerTenant?: number;
  /** While interactive work waits, every n-th start is background work (default BACKGROUND_EVERY). */
  backgroundEvery?: number;
}

interface Job {
  tenantId: string;
  priority: EmbedPriority;
  work: () => Promise<unknown>;
  resolve: (value: unknown) => void;
  reject: (reason: unknown) => void;
  signal: AbortSignal | undefined;
  onAbort: (() => void) | undefined;
}

/**
 * One class of work: a FIFO per tenant, served by start-time fair queuing. Each tenant's next
 * job belongs to a round; the job of the lowest round starts first (ties: the tenant active
 * longest), and a tenant's round goes up by one with each job it starts. A tenant that becomes
 * active joins the round being served: it goes before the tenants already served in it, and
 * an idle spell earns it no credit (its round is never below the current one).
 */
class Lane {
  /** Waiting jobs by tenant, in the order the tenants became active. */
  readonly byTenant = new Map<string, Job[]>();
  /** The round of each tenant's next job; kept after its queue empties while above the current round. */
  private readonly rounds = new Map<string, number>();
  /** The round of the job started last. */
  private current = 0;
  size = 0;

  push(job: Job): void {
    const jobs = this.byTenant.get(job.tenantId);
    if (jobs) jobs.push(job);
    else {
      this.byTenant.set(job.tenantId, [job]);
      this.rounds.set(job.tenantId, Math.max(this.current, this.rounds.get(job.tenantId) ?? 0));
    }
    this.size += 1;
  }

  /** The oldest job of the tenant of the lowest round. */
  take(): Job | undefined {
    let tenantId: string | undefined;
    let lowest = Infinity;
    for (const t of this.byTenant.keys()) {
      const round = this.rounds.get(t)!;
      if (round < lowest) [tenantId, lowest] = [t, round];
    }
    if (tenantId === undefined) return undefined;
    const jobs = this.byTenant.get(tenantId)!;
    const job = jobs.shift()!;
    this.size -= 1;
    if (jobs.length === 0) this.byTenant.delete(tenantId);
    this.current = lowest;
    this.rounds.set(tenantId, lowest + 1);
    this.forget();
    return job;
  }

  /** Removes a job still waiting (its caller gave up); false when it is not waiting any more. */
  remove(job: Job): boolean {
    const jobs = this.byTenant.get(job.tenantId);
    const at = jobs?.indexOf(job) ?? -1;
    if (!jobs || at < 0) return false;
    jobs.splice(at, 1);
    this.size -= 1;
    if (jobs.length === 0) this.byTenant.delete(job.tenantId);
    return true;
  }

  waiting(tenantId: string): number {
    return this.byTenant.get(tenantId)?.length ?? 0;
  }

  /** Drops the rounds of idle tenants that no longer matter (at or below the current round). */
  private forget(): void {
    if (this.rounds.size <= 2 * this.byTenant.size + 64) return;
    for (const [t, round] of this.rounds) if (!this.byTenant.has(t) && round <= this.current) this.rounds.delete(t);
  }
}

/**
 * The one queue in front of the embedder, fair between tenants: each tenant has its own FIFO
 * per priority, and the tenants with work waiting are served in turn (a round of one job per
 * tenant, see Lane), so a tenant with a hundred queries waiting costs another tenant one
 * embedding, not a hundred: a query waits for the embeddings running, then at most one per
 * other tenant with queries waiting (and one background job in BACKGROUND_EVERY starts).
 * Interactive work goes before background work, which still gets every n-th start while
 * queries wait, so indexing neither delays a query much nor stops under a flood. A tenant's queued interactive work is capped:
 * over the cap a request is refused at once (429, Retry-After), not queued behind its own
 * flood. Background work is not capped here: its callers bound it (one indexing pass at a
 * time, the ingest worker's concurrency). A caller that gives up (its AbortSignal) leaves the
 * queue; a job that fails fails its caller only.
 *
 * Written here rather than taken from a library: p-queue and its kin order by priority, not by
 * a round of keys, and p-limit/bottleneck groups give one queue per key with no turn between them.
 */
export function createEmbedderQueue(options: EmbedderQueueOptions = {}) {
  const concurrency = Math.max(1, options.concurrency ?? EMBED_CONCURRENCY);
  const cap = Math.max(1, options.maxQueuedPerTenant ?? EMBED_QUEUE_PER_TENANT);
  const backgroundEvery = Math.max(2, options.backgroundEvery ?? BACKGROUND_EVERY);
  const lanes: Record<EmbedPriority, Lane> = { interactive: new Lane(), background: new Lane() };
  let running = 0;
  let refused = 0;
  /** Interactive starts since the last background start, counted while background work waited. */
  let sinceBackground = 0;

  function next(): Job | undefined {
    const { interactive, background } = lanes;
    if (interactive.size > 0 && (background.size === 0 || sinceBackground < backgroundEvery - 1)) {
      if (background.size > 0) sinceBackground += 1;
      return interactive.take();
    }
    sinceBackground = 0;
    return background.take();
  }

  function pump(): void {
    while (running < concurrency) {
      const job = next();
      if (!job) return;
      if (job.onAbort) job.signal!.removeEventListener('abort', job.onAbort);
      running += 1;
      Promise.resolve()
        .then(job.work)
        .then(job.resolve, job.reject)
        .finally(() => {
          running -= 1;
          pump();
        });
    }
  }

  /**
   * Runs `work` when its tenant's turn comes. Rejects at once with a rate_limited AppError when
   * `priority` is interactive and the tenant already has the cap waiting, and with the signal's
   * reason when `signal` aborts before the work starts.
   */
  function run<T>(tenantId: string, priority: EmbedPriority, work: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    if (priority === 'interactive' && lanes.interactive.waiting(tenantId) >= cap) {
      refused += 1;
      return Promise.reject(
        rateLimited(
          RETRY_AFTER_SECONDS,
          `Too many of this tenant's searches are waiting for the embedder (at most ${cap}); retry shortly`,
        ),
      );
    }
    return new Promise<T>((resolve, reject) => {
      const job: Job = {
        tenantId,
        priority,
        work,
        resolve: resolve as (value: unknown) => void,
        reject,
        signal,
        onAbort: undefined,
      };
      if (signal) {
        job.onAbort = () => {
          if (lanes[priority].remove(job)) reject(signal.reason);
        };
        signal.addEventListener('abort', job.onAbort, { once: true });
      }
      lanes[priority].push(job);
      pump();
    });
  }

  return {
    run,
    /** Jobs running and waiting by priority, tenants with work waiting, and queries refused since start. */
    stats: () => ({
      running,
      queued: { interactive: lanes.interactive.size, background: lanes.background.size },
      tenants: new Set([...lanes.interactive.byTenant.keys(), ...lanes.background.byTenant.keys()]).size,
      refused,
    }),
  };
}
export type EmbedderQueue = ReturnType<typeof createEmbedderQueue>;
