import { fileURLToPath } from 'node:url';
import type { BlobStore } from '@kg/blobs';
import { createOutboxRelay, type EventBus } from '@kg/bus';
import type { Database } from '@kg/db';
import type { Logger } from '@kg/logger';
import type { ServiceModule } from '@kg/service-kit';
import type { CapturesContext } from './domain/context';
import { createCapturesRouter } from './router';
import { outbox } from './store/schema';

export const capturesMigrations = {
  migrationsFolder: fileURLToPath(new URL('../drizzle', import.meta.url)),
  schema: 'captures',
};

export interface CapturesDeps {
  database: Database;
  bus: EventBus;
  blobs: BlobStore;
  logger: Logger;
  /** Claim lease when the worker names none (default 120 s). */
  leaseMs?: number;
  outboxPollMs?: number;
}

/** The captures service as a mountable module: router and outbox relay. */
export async function createCapturesModule(
  deps: CapturesDeps,
): Promise<ServiceModule & { ctx: CapturesContext; flushEvents(): Promise<number> }> {
  const relay = createOutboxRelay({
    db: deps.database.db,
    table: outbox,
    bus: deps.bus,
    logger: deps.logger,
    ...(deps.outboxPollMs ? { pollMs: deps.outboxPollMs } : {}),
  });
  const ctx: CapturesContext = {
    db: deps.database.db,
    blobs: deps.blobs,
    logger: deps.logger,
    now: () => new Date(),
    afterCommit: () => relay.wake(),
    leaseMs: deps.leaseMs ?? 120_000,
  };
  return {
    name: 'captures',
    ctx,
    router: createCapturesRouter(ctx),
    start: async () => relay.start(),
    stop: () => relay.stop(),
    ready: async () => (await deps.database.ping()) && (await deps.blobs.ready()),
    flushEvents: () => relay.flush(),
  };
}
