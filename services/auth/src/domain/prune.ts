import type { Db } from '@kg/db';
import type { Logger } from '@kg/logger';
import { createPeriodicJob, type PeriodicJob } from '@kg/service-kit';
import { pruneMagicLinks } from '../store/magic-links';
import { pruneRefreshTokens } from '../store/refresh-tokens';

/** One pass returns what it deleted. */
export type AuthPruneJob = PeriodicJob<{ magicLinks: number; refreshTokens: number }>;

/**
 * Deletes expired one-time records of the auth service: magic links (used or not) and
 * refresh tokens past their expiry. Neither can be accepted once expired, so no answer
 * changes; the tables just stop growing. Runs every `intervalMs` (service-kit's periodic job).
 */
export function createAuthPruneJob(opts: {
  db: Db;
  logger: Logger;
  intervalMs: number;
  now?: () => Date;
}): AuthPruneJob {
  const now = opts.now ?? (() => new Date());
  return createPeriodicJob({
    name: 'auth prune',
    intervalMs: opts.intervalMs,
    logger: opts.logger,
    async run() {
      const at = now();
      const result = {
        magicLinks: await pruneMagicLinks(opts.db, at),
        refreshTokens: await pruneRefreshTokens(opts.db, at),
      };
      if (result.magicLinks || result.refreshTokens) opts.logger.info(result, 'pruned expired sign-in records');
      return result;
    },
  });
}
