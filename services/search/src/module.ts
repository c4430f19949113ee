import { fileURLToPath } from 'node:url';
import type { EventBus } from '@kg/bus';
import type { Database } from '@kg/db';
import type { Logger } from '@kg/logger';
import type { ServiceModule } from '@kg/service-kit';
import { createSearchRouter } from './router';
import { nodeEventsSubscription } from './consumers/node-events';

export const searchMigrations = {
  migrationsFolder: fileURLToPath(new URL('../drizzle', import.meta.url)),
  schema: 'search',
};

export interface SearchDeps {
  database: Database;
  bus: EventBus;
  logger: Logger;
}

/** The search service as a mountable module: router plus the node-events consumer. */
export async function createSearchModule(deps: SearchDeps): Promise<ServiceModule> {
  await deps.bus.subscribe(nodeEventsSubscription(deps.database.db));
  return {
    name: 'search',
    router: createSearchRouter(deps.database.db),
    start: async () => {},
    stop: async () => {},
    ready: () => deps.database.ping(),
  };
}
