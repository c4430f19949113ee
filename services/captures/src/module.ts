import type { Database } from '@kg/db';
import type { Logger } from '@kg/logger';
import type { ServiceModule } from '@kg/service-kit';
import { createCapturesRouter } from './router';

export interface CapturesDeps {
  database: Database;
  logger: Logger;
}

/** The captures service as a mountable module. */
export async function createCapturesModule(deps: CapturesDeps): Promise<ServiceModule> {
  return {
    name: 'captures',
    router: createCapturesRouter(),
    start: async () => {},
    stop: async () => {},
    ready: () => deps.database.ping(),
  };
}
