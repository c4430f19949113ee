import type { Db } from '@kg/db';
import type { Logger } from '@kg/logger';
import { pruneMagicLinks } from '../store/magic-links';
import { pruneRefreshTokens } from '../store/refresh-tokens';

export interface AuthPruneJob {
  /** One pass: returns what it deleted. */
  runOnce(): Promise<{ magicLinks: number; refreshTokens: number }>;
  start(): void;
  stop(): Promise<void>;
}

/**
 * Deletes expired one-time records of the auth service: magic links (used or not) and
 * refresh tokens past their expiry. Neither can be accepted once expired, so no answer
 * changes; the tables just stop growing. Runs every `intervalMs` on an unref'd timer.
 */
export function createAuthPruneJob(opts: {
  db: Db;
  logger: Logger;
  intervalMs: number;
  now?: () => Date;
}): AuthPruneJob {
  const now = opts.now ?? (() => new Date());
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<unknown> | null = null;

  async function runOnce() {
    const at = now();
    const result = {
      magicLinks: await pruneMagicLinks(opts.db, at),
      refreshTokens: await pruneRefreshTokens(opts.db, at),
    };
    if (result.magicLinks || result.refreshTokens) opts.logger.info(result, 'pruned expired sign-in records');
    return result;
  }

  return {
    runOnce,
    start() {
      if (timer) return;
      timer = setInterval(() => {
        if (running) return;
        running = runOnce()
          .catch((err: unknown) => opts.logger.warn({ err }, 'auth prune failed; will retry'))
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
