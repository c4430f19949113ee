import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import type { BlobStore } from '@kg/blobs';
import { createOutboxRelay, type EventBus } from '@kg/bus';
import type { Database } from '@kg/db';
import type { Logger } from '@kg/logger';
import { createAddressPolicy, type ServiceModule } from '@kg/service-kit';
import type { CapturesContext } from './domain/context';
import { importsEnv, type ImportsConfig } from './imports/config';
import type { ImportsContext } from './imports/context';
import { createImportRunner, type ImportRunner } from './imports/runner';
import { createCapturesRouter } from './router';
import { outbox } from './store/schema';
import { webhooksEnv, type WebhooksConfig } from './webhooks/config';
import { subscribeWebhookEvents } from './webhooks/consumer';
import type { WebhooksContext } from './webhooks/context';
import { createDispatcher, type Dispatcher } from './webhooks/dispatcher';
import { DEFAULT_DELAYS_MS, retrySchedule } from './webhooks/schedule';
import { createSender } from './webhooks/sender';
import { createSubscribers } from './webhooks/subscribers';

export { checkWebhooks, webhooksEnv, type WebhooksConfig } from './webhooks/config';
export { checkImports, importsEnv, type ImportsConfig } from './imports/config';

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
  /** Webhook delivery settings (webhooksEnv); absent: the defaults. */
  webhooks?: WebhooksConfig;
  /** Bookmark import settings (importsEnv); absent: the defaults. */
  imports?: ImportsConfig;
  /**
   * This process makes every write of the captures tables (the embedded mode): the webhook
   * fan-out then keeps each tenant's endpoints in memory (webhooks/subscribers.ts). Never with replicas.
   */
  singleWriter?: boolean;
}

/** The captures service as a mountable module: router, outbox relay, the webhooks' fan-out and dispatcher, and the import runner. */
export async function createCapturesModule(deps: CapturesDeps): Promise<
  ServiceModule & {
    ctx: CapturesContext;
    webhooks: WebhooksContext;
    dispatcher: Dispatcher;
    imports: ImportsContext;
    importRunner: ImportRunner;
    flushEvents(): Promise<number>;
  }
> {
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
  const settings = deps.webhooks ?? z.object(webhooksEnv).parse({});
  let dispatcher: Dispatcher | null = null;
  const webhooks: WebhooksContext = {
    db: deps.database.db,
    logger: deps.logger,
    now: () => new Date(),
    policy: createAddressPolicy(settings.WEBHOOK_ALLOWLIST),
    schedule: retrySchedule(
      settings.WEBHOOK_RETRY_DELAYS_MS.length ? settings.WEBHOOK_RETRY_DELAYS_MS : DEFAULT_DELAYS_MS,
      settings.WEBHOOK_RETRY_WINDOW_MS,
    ),
    failureWindowMs: settings.WEBHOOK_FAILURE_WINDOW_MS,
    maxEndpoints: settings.WEBHOOK_MAX_ENDPOINTS,
    wake: () => dispatcher?.wake(),
    subscribers: createSubscribers(deps.database.db, { singleWriter: deps.singleWriter ?? false }),
  };
  dispatcher = createDispatcher(webhooks, {
    send: createSender({ allowlist: settings.WEBHOOK_ALLOWLIST, timeoutMs: settings.WEBHOOK_TIMEOUT_MS }),
    leaseMs: settings.WEBHOOK_LEASE_MS,
  });
  await subscribeWebhookEvents(deps.bus, webhooks);
  const importSettings = deps.imports ?? z.object(importsEnv).parse({});
  let importRunner: ImportRunner | null = null;
  const imports: ImportsContext = {
    captures: ctx,
    maxActive: importSettings.IMPORT_MAX_ACTIVE,
    maxBytes: importSettings.IMPORT_MAX_BYTES,
    maxInFlight: importSettings.IMPORT_MAX_IN_FLIGHT,
    batchSize: importSettings.IMPORT_BATCH_SIZE,
    leaseMs: importSettings.IMPORT_LEASE_MS,
    wake: () => importRunner?.wake(),
  };
  importRunner = createImportRunner(imports);
  return {
    name: 'captures',
    ctx,
    webhooks,
    dispatcher,
    imports,
    importRunner,
    router: createCapturesRouter(ctx, webhooks, imports),
    start: async () => {
      relay.start();
      dispatcher.start();
      importRunner.start();
    },
    stop: async () => {
      await importRunner.stop();
      await dispatcher.stop();
      await relay.stop();
    },
    ready: async () => (await deps.database.ping()) && (await deps.blobs.ready()),
    flushEvents: () => relay.flush(),
  };
}
