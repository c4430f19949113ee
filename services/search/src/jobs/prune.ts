import { pruneProcessedEvents, type Db } from '@kg/db';
import type { Logger } from '@kg/logger';
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

export interface PruneJob {
  /** One pass: returns what it deleted. */
  runOnce(): Promise<{ processedEvents: number; tombstones: number }>;
  start(): void;
  stop(): Promise<void>;
}

/**
 * Prunes the search service's one-time records: processed-event ledger rows and
 * tombstones of deleted nodes past the retention. Both only guard against late or
 * redelivered events, which never arrive days later (a replayed dead letter that does
 * is ignored by its version or handled again harmlessly). The timer is unref'd.
 */
export function createPruneJob(opts: PruneJobOptions): PruneJob {
  const now = opts.now ?? (() => new Date());
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<unknown> | null = null;

  async function runOnce() {
    const before = new Date(now().getTime() - opts.retentionMs);
    const result = {
      processedEvents: await pruneProcessedEvents(opts.db, processedEvents, before),
      tombstones: await pruneTombstones(opts.db, before),
    };
    if (result.processedEvents || result.tombstones) opts.logger.info(result, 'pruned expired search records');
    return result;
  }

  return {
    runOnce,
    start() {
      if (timer) return;
      timer = setInterval(() => {
        if (running) return;
        running = runOnce()
          .catch((err: unknown) => opts.logger.warn({ err }, 'search prune failed; will retry'))
          .finally(() => (running = null));
      }, opts.intervalMs);
      timer.unref();
    },
    async stop() {
      if (timer) clearInterval(timer);
      timer = null;
      await running;
    },
  };
}
