import type { Database } from '@kg/db';
import type { Logger } from '@kg/logger';
import type { ServiceModule } from '@kg/service-kit';
import { createIngestWorkerRouter } from './router';

export interface IngestWorkerDeps {
  database: Database;
  logger: Logger;
}

/** The ingest-worker service as a mountable module. */
export async function createIngestWorkerModule(deps: IngestWorkerDeps): Promise<ServiceModule> {
  return {
    name: 'ingest-worker',
    router: createIngestWorkerRouter(),
    start: async () => {},
    stop: async () => {},
    ready: () => deps.database.ping(),
  };
}
