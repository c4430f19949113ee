import type { Database } from '@kg/db';
import type { Logger } from '@kg/logger';
import type { ServiceModule } from '@kg/service-kit';
import { createSearchRouter } from './router';

export interface SearchDeps {
  database: Database;
  logger: Logger;
}

/** The search service as a mountable module. */
export async function createSearchModule(deps: SearchDeps): Promise<ServiceModule> {
  return {
    name: 'search',
    router: createSearchRouter(),
    start: async () => {},
    stop: async () => {},
    ready: () => deps.database.ping(),
  };
}
