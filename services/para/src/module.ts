import { fileURLToPath } from 'node:url';
import type { graphApi } from '@kg/contracts';
import { createOutboxRelay, type EventBus } from '@kg/bus';
import type { Database } from '@kg/db';
import { viewChangeNotifier, type KvStore } from '@kg/kv';
import type { Logger } from '@kg/logger';
import { createPeriodicJob, type ServiceModule } from '@kg/service-kit';
import type { ServiceHandle } from '@kg/trpc';
import { subscribeJobs } from './consumers/jobs';
import { retryPendingAssociations } from './domain/associations';
import type { ParaContext } from './domain/context';
import { requeueStaleJobs } from './domain/jobs';
import { keywordScorer } from './domain/scorer';
import { createParaRouter } from './router';
import { outbox } from './store/schema';

export const paraMigrations = {
  migrationsFolder: fileURLToPath(new URL('../drizzle', import.meta.url)),
  schema: 'para',
};

export interface ParaDeps {
  database: Database;
  bus: EventBus;
  logger: Logger;
  /** The graph service, which owns the node↔item associations and scores orphans. */
  graph: ServiceHandle<typeof graphApi>;
  /** Where the tenants' view tokens live (Redis or memory): an item's change drops the gateway's kept graph views. */
  kv: KvStore;
  /** How often pending association commands are retried and stale jobs re-queued (default 5 s). */
  sweepMs?: number;
  outboxPollMs?: number;
}

/** The PARA service as a mountable module: router, job consumer, outbox relay and the sweeper. */
export async function createParaModule(
  deps: ParaDeps,
): Promise<ServiceModule & { ctx: ParaContext; flushEvents(): Promise<number> }> {
  const relay = createOutboxRelay({
    db: deps.database.db,
    table: outbox,
    bus: deps.bus,
    logger: deps.logger,
    ...(deps.outboxPollMs ? { pollMs: deps.outboxPollMs } : {}),
  });
  const ctx: ParaContext = {
    db: deps.database.db,
    graph: deps.graph,
    scorer: keywordScorer(deps.graph),
    logger: deps.logger,
    now: () => new Date(),
    afterCommit: () => relay.wake(),
    viewsChanged: viewChangeNotifier(deps.kv, (err, tenantId) =>
      deps.logger.warn({ err, tenantId }, 'view token not changed: kept views of the tenant live until their max age'),
    ),
  };
  await subscribeJobs(deps.bus, ctx);
  // Finishes half-done archive/unarchive propagations and re-queues stale jobs; passes never overlap.
  const sweeper = createPeriodicJob({
    name: 'para sweep',
    intervalMs: deps.sweepMs ?? 5000,
    logger: deps.logger,
    run: () => Promise.all([retryPendingAssociations(ctx), requeueStaleJobs(ctx)]),
  });
  return {
    name: 'para',
    ctx,
    router: createParaRouter(ctx),
    start: async () => {
      relay.start();
      sweeper.start();
    },
    stop: async () => {
      await sweeper.stop();
      await relay.stop();
    },
    ready: () => deps.database.ping(),
    flushEvents: () => relay.flush(),
  };
}
