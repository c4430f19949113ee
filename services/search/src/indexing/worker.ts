import type { Logger } from '@kg/logger';
import { createPeriodicJob } from '@kg/service-kit';
import type { Indexer } from './indexer';

/**
 * Runs indexing passes every `intervalMs` until nothing is pending: node writes return before
 * their vector exists (embedding is never on the request path of POST /nodes); the bound on
 * that lag is measured in docs/API.md "Semantic search".
 */
export function createIndexWorker(indexer: Indexer, intervalMs: number, logger: Logger) {
  return createPeriodicJob({
    name: 'search indexing',
    intervalMs,
    logger,
    async run() {
      let settled = 0;
      for (let n = await indexer.runPass(); n > 0; n = await indexer.runPass()) settled += n;
      return settled;
    },
  });
}
