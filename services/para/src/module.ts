import { fileURLToPath } from 'node:url';
import type { graphApi } from '@kg/contracts';
import type { Database } from '@kg/db';
import type { Logger } from '@kg/logger';
import type { ServiceModule } from '@kg/service-kit';
import type { ServiceHandle } from '@kg/trpc';
import { retryPendingAssociations } from './domain/associations';
import type { ParaContext } from './domain/context';
import { createParaRouter } from './router';

export const paraMigrations = {
  migrationsFolder: fileURLToPath(new URL('../drizzle', import.meta.url)),
  schema: 'para',
};

export interface ParaDeps {
  database: Database;
  logger: Logger;
  /** The graph service, which owns the node↔item associations. */
  graph: ServiceHandle<typeof graphApi>;
  /** How often pending association commands are retried (default 5 s). */
  associationsRetryMs?: number;
}

/** The PARA service as a mountable module: router plus the association sweeper. */
export async function createParaModule(deps: ParaDeps): Promise<ServiceModule & { ctx: ParaContext }> {
  const ctx: ParaContext = { db: deps.database.db, graph: deps.graph, logger: deps.logger, now: () => new Date() };
  let timer: NodeJS.Timeout | null = null;
  let sweeping: Promise<unknown> = Promise.resolve();
  const sweep = () => {
    sweeping = retryPendingAssociations(ctx).catch((err) => deps.logger.warn({ err }, 'association sweep failed'));
  };
  return {
    name: 'para',
    ctx,
    router: createParaRouter(ctx),
    start: async () => {
      timer = setInterval(sweep, deps.associationsRetryMs ?? 5000);
      timer.unref();
    },
    stop: async () => {
      if (timer) clearInterval(timer);
      await sweeping;
    },
    ready: () => deps.database.ping(),
  };
}
