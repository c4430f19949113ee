import type { Logger } from '@kg/logger';
import { createPeriodicJob } from '@kg/service-kit';
import { isVectorIndexUnavailable, VectorCollectionMismatchError } from '@kg/vectors';
import type { VectorHealth } from '../vector-health';
import type { Indexer } from './indexer';

/** First wait after a pass the vector index could not serve; it doubles after each next one. */
export const INDEX_BACKOFF_FIRST_MS = 1000;
/** The longest wait between two attempts while the vector index stays unavailable. */
export const INDEX_BACKOFF_MAX_MS = 30_000;
/**
 * Passes run at once: while one waits for the model, the next reads its documents and nodes
 * and the previous one records its vectors, so the model never idles between two batches (on
 * the embedded database a background statement waits behind requests).
 */
export const INDEX_PASSES_IN_FLIGHT = 2;

export interface IndexWorkerOptions {
  /** Where an outage is reported (logged once when it starts, once when the index answers again). */
  health: VectorHealth;
  /** The collection, made after start-up, exists with other vectors: indexing stops and this is told once. */
  onMismatch: (err: VectorCollectionMismatchError) => void;
  firstBackoffMs?: number;
  maxBackoffMs?: number;
  /** Passes run at once (default INDEX_PASSES_IN_FLIGHT). */
  passesInFlight?: number;
  /** The clock (tests). */
  now?: () => number;
}

/**
 * Runs indexing passes every `intervalMs` until nothing is pending: node writes return before
 * their vector exists (embedding is never on the request path of POST /nodes); the bound on
 * that lag is measured in docs/API.md "Semantic search".
 *
 * While the vector index cannot answer (VectorIndexUnavailableError, also while the collection
 * could not be made at start-up), passes back off: 1 s, then twice as long after each failed
 * attempt, at most 30 s; the outage is logged once (VectorHealth), not at every pass, and the
 * documents stay pending until an upsert succeeds. Other failures are the periodic job's (a
 * warning, tried again at the next tick).
 */
export function createIndexWorker(indexer: Indexer, intervalMs: number, logger: Logger, options: IndexWorkerOptions) {
  const now = options.now ?? Date.now;
  const first = options.firstBackoffMs ?? INDEX_BACKOFF_FIRST_MS;
  const max = options.maxBackoffMs ?? INDEX_BACKOFF_MAX_MS;
  const lanes = Math.max(1, options.passesInFlight ?? INDEX_PASSES_IN_FLIGHT);
  /** Passes one after another until one finds nothing to do; their documents handled. */
  const lane = async () => {
    let settled = 0;
    for (let n = await indexer.runPass(); n > 0; n = await indexer.runPass()) settled += n;
    return settled;
  };
  let failures = 0;
  let nextAttemptAt = 0;
  return createPeriodicJob({
    name: 'search indexing',
    intervalMs,
    logger,
    async run() {
      if (now() < nextAttemptAt) return 0;
      // Every lane ends before the run does (allSettled), so the next tick never overlaps one.
      const ran = await Promise.allSettled(Array.from({ length: lanes }, lane));
      const settled = ran.reduce((sum, r) => sum + (r.status === 'fulfilled' ? r.value : 0), 0);
      const failed = ran.find((r) => r.status === 'rejected');
      if (failed) {
        const err: unknown = failed.reason;
        if (err instanceof VectorCollectionMismatchError) {
          nextAttemptAt = Number.POSITIVE_INFINITY;
          options.onMismatch(err);
          return settled;
        }
        if (!isVectorIndexUnavailable(err)) throw err;
        options.health.failed(err);
        nextAttemptAt = now() + Math.min(first * 2 ** failures, max);
        failures += 1;
        return settled;
      }
      failures = 0;
      nextAttemptAt = 0;
      return settled;
    },
  });
}
