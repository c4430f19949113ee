import { pruneProcessedEvents, type Db } from '@kg/db';
import type { Logger } from '@kg/logger';
import { createPeriodicJob, type PeriodicJob } from '@kg/service-kit';
import { pruneTombstones } from '../store/documents';
import { processedEvents } from '../store/schema';

export interface PruneJobOptions {
  db: Db;
  logger: Logger;
  /** Time between runs (default one hour). */
  intervalMs: number;
  /** Ledger rows and tombstones older than this go (default seven days). */
  retentionMs: number;
  now?: () => Date;
}

/** One pass returns what it deleted. */
export type PruneJob = PeriodicJob<{ processedEvents: number; tombstones: number }>;

/**
 * Prunes the search service's one-time records: processed-event ledger rows and
 * tombstones of deleted nodes past the retention. Both only guard against late or
 * redelivered events, which never arrive days later (a replayed dead letter that does
 * is ignored by its version or handled again harmlessly). Runs on service-kit's periodic job.
 */
export function createPruneJob(opts: PruneJobOptions): PruneJob {
  const now = opts.now ?? (() => new Date());
  return createPeriodicJob({
    name: 'search prune',
    intervalMs: opts.intervalMs,
    logger: opts.logger,
    async run() {
      const before = new Date(now().getTime() - opts.retentionMs);
      const result = {
        processedEvents: await pruneProcessedEvents(opts.db, processedEvents, before),
        tombstones: await pruneTombstones(opts.db, before),
      };
      if (result.processedEvents || result.tombstones) opts.logger.info(result, 'pruned expired search records');
      return result;
    },
  });
}
