import { fileURLToPath } from 'node:url';
import type { EventBus } from '@kg/bus';
import { PROCESSED_EVENTS_RETENTION_MS, type Database } from '@kg/db';
import type { Logger } from '@kg/logger';
import type { ServiceModule } from '@kg/service-kit';
import { createSearchRouter } from './router';
import { nodeEventsSubscription } from './consumers/node-events';
import { createPruneJob } from './jobs/prune';

export const searchMigrations = {
  migrationsFolder: fileURLToPath(new URL('../drizzle', import.meta.url)),
  schema: 'search',
};

export interface SearchDeps {
  database: Database;
  bus: EventBus;
  logger: Logger;
  /** Between two prunes of the ledger and tombstones (default one hour). */
  pruneIntervalMs?: number;
  /** How long ledger rows and tombstones are kept (default seven days). */
  retentionMs?: number;
}

/** The search service as a mountable module: router, the node-events consumer and its prune job. */
export async function createSearchModule(deps: SearchDeps): Promise<ServiceModule> {
  await deps.bus.subscribe(nodeEventsSubscription(deps.database.db));
  const prune = createPruneJob({
    db: deps.database.db,
    logger: deps.logger,
    intervalMs: deps.pruneIntervalMs ?? 3600_000,
    retentionMs: deps.retentionMs ?? PROCESSED_EVENTS_RETENTION_MS,
  });
  return {
    name: 'search',
    router: createSearchRouter(deps.database.db),
    start: async () => prune.start(),
    stop: () => prune.stop(),
    ready: () => deps.database.ping(),
  };
}
