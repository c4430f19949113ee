import { fileURLToPath } from 'node:url';
import type { Database } from '@kg/db';
import type { Logger } from '@kg/logger';
import type { ServiceModule } from '@kg/service-kit';
import { createParaRouter } from './router';

export const paraMigrations = {
  migrationsFolder: fileURLToPath(new URL('../drizzle', import.meta.url)),
  schema: 'para',
};

export interface ParaDeps {
  database: Database;
  logger: Logger;
}

/** The PARA service as a mountable module. */
export async function createParaModule(deps: ParaDeps): Promise<ServiceModule> {
  return {
    name: 'para',
    router: createParaRouter({ db: deps.database.db, now: () => new Date() }),
    start: async () => {},
    stop: async () => {},
    ready: () => deps.database.ping(),
  };
}
