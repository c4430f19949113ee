import { fileURLToPath } from 'node:url';
import type { paraApi } from '@kg/contracts';
import { createOutboxRelay, type EventBus } from '@kg/bus';
import type { Database } from '@kg/db';
import { createCursorStore, viewChangeNotifier, type KvStore } from '@kg/kv';
import type { Logger } from '@kg/logger';
import type { ServiceModule } from '@kg/service-kit';
import type { ServiceHandle } from '@kg/trpc';
import { createGraphRouter } from './router';
import { outbox } from './store/schema';
import { GraphCache } from './domain/graph-cache';
import { createPlannerStatsJob } from './domain/planner-stats';
import { createGraphMetrics } from './metrics';

export const graphMigrations = {
  migrationsFolder: fileURLToPath(new URL('../drizzle', import.meta.url)),
  schema: 'graph',
};

export interface GraphDeps {
  database: Database;
  bus: EventBus;
  logger: Logger;
  para: ServiceHandle<typeof paraApi>;
  /** Holds the neighbours view's server-side cursors and the tenants' view tokens (Redis or memory). */
  kv: KvStore;
  outboxPollMs?: number;
  /** Link rows the graph-view cache may hold across tenants (default 4,000,000). */
  viewCacheMaxLinks?: number;
  /**
   * This process makes every write of the graph (the embedded mode): the graph-view cache
   * then serves an unchanged tenant without reading its version. Never with replicas.
   */
  singleWriter?: boolean;
  /** How often the planner statistics job checks for staleness (default 60 s; also 2 s after writes). */
  plannerStatsIntervalMs?: number;
}

/** The graph service as a mountable module: router plus the outbox relay. */
export async function createGraphModule(deps: GraphDeps): Promise<ServiceModule & { flushEvents(): Promise<number> }> {
  const relay = createOutboxRelay({
    db: deps.database.db,
    table: outbox,
    bus: deps.bus,
    logger: deps.logger,
    ...(deps.outboxPollMs ? { pollMs: deps.outboxPollMs } : {}),
  });
  const plannerStats = createPlannerStatsJob({
    db: deps.database.db,
    kind: deps.database.kind,
    logger: deps.logger,
    intervalMs: deps.plannerStatsIntervalMs ?? 60_000,
  });
  const graphs = new GraphCache(deps.database.db, deps.logger, {
    ...(deps.viewCacheMaxLinks ? { maxLinkRows: deps.viewCacheMaxLinks } : {}),
    singleWriter: deps.singleWriter ?? false,
  });
  const router = createGraphRouter({
    db: deps.database.db,
    para: deps.para,
    afterCommit: () => {
      relay.wake();
      plannerStats.poke();
    },
    now: () => new Date(),
    cursors: createCursorStore(deps.kv, 'graph-neighbors'),
    graphs,
    tenantChanged: (tenantId) => graphs.changed(tenantId),
    viewsChanged: viewChangeNotifier(deps.kv, (err, tenantId) =>
      deps.logger.warn({ err, tenantId }, 'view token not changed: kept views of the tenant live until their max age'),
    ),
  });
  return {
    name: 'graph',
    router,
    start: async () => {
      relay.start();
      plannerStats.start();
      plannerStats.poke();
    },
    stop: async () => {
      await plannerStats.stop();
      await relay.stop();
    },
    registerMetrics: (registry) => createGraphMetrics(graphs).register(registry),
    // Its own dependencies only (database, cursor store); not Kafka (the outbox holds events) nor para.
    ready: async () => (await Promise.all([deps.database.ping(), deps.kv.ping()])).every(Boolean),
    flushEvents: () => relay.flush(),
  };
}
