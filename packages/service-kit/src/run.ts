import type { EventBus } from '@kg/bus';
import { env, loadConfig } from '@kg/config';
import { openDatabase, postgresOptions, type Database } from '@kg/db';
import { createLogger, type Logger } from '@kg/logger';
import type { InternalTokenVerifier } from '@kg/tokens';
import type { ServiceModule } from './module';
import { serveService } from './serve';

export interface Migrations {
  migrationsFolder: string;
  schema: string;
}

export interface RunOptions {
  argv: string[];
  logger: Logger;
  database: Database | null;
  /** The service's bus, started after the module and stopped after it (consumers commit, relay flushed). */
  bus?: EventBus;
  /** Other connections to close on shutdown (kv clients…), after the bus. */
  resources?: Array<{ close(): Promise<void> }>;
  migrations: Migrations | null;
  createModule: () => Promise<ServiceModule>;
  port: number;
  host: string;
  /** Port of the separate /metrics listener (METRICS_PORT). */
  metricsPort: number;
  /** Checks the internal token of each call (the public keys of the services). */
  verifier: InternalTokenVerifier;
  shutdownGraceMs?: number;
  /** SHUTDOWN_DRAIN_MS: how long it keeps answering after the signal, readiness failing (serveService). */
  shutdownDrainMs?: number;
  /** MEMORY_REDUCE_INTERVAL_MS (serveService); 0: off. */
  memoryReduceIntervalMs: number;
}

/**
 * The body of every service's main.ts. `main.ts migrate` runs the service's migrations
 * and exits (services with migrations call `migrateIfAsked` first, which needs no more
 * than the database settings); otherwise it starts the module, serves it over HTTP,
 * and on SIGTERM/SIGINT stops taking requests, finishes in-flight requests, stops its
 * background work (the outbox relay flushes), lets consumers finish and commit, and exits.
 */
export async function runServiceProcess(opts: RunOptions): Promise<void> {
  const { logger, database } = opts;
  if (opts.argv.includes('migrate')) {
    if (database && opts.migrations) await database.migrate(opts.migrations);
    logger.info('migrations applied');
    await database?.close();
    // Exit explicitly: a client opened at start-up (a kv or bus connection) must not keep a migration Job alive.
    process.exit(0);
  }
  const module = await opts.createModule();
  await module.start();
  await opts.bus?.start();
  const http = await serveService({
    module,
    port: opts.port,
    host: opts.host,
    metricsPort: opts.metricsPort,
    verifier: opts.verifier,
    logger,
    drainMs: opts.shutdownDrainMs ?? 0,
    memoryReduceIntervalMs: opts.memoryReduceIntervalMs,
  });
  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal, drainMs: opts.shutdownDrainMs ?? 0 }, 'shutting down');
    const force = setTimeout(() => {
      logger.error('shutdown grace period exceeded; exiting');
      process.exit(1);
    }, opts.shutdownGraceMs ?? 20_000);
    force.unref();
    await http.close();
    await module.stop();
    await opts.bus?.stop();
    for (const resource of opts.resources ?? []) await resource.close().catch(() => undefined);
    await database?.close();
    logger.info('stopped');
    process.exit(0);
  };
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
  process.once('SIGINT', () => void shutdown('SIGINT'));
}

/**
 * `main.ts migrate`, run before the service parses its full config: reads only what the
 * migrations need (`env.migrateConfigSchema`: DATABASE_URL, its timeouts, LOG_LEVEL), so
 * the migrations Job holds no signing key or other secret of the service. Applies the
 * migrations and exits; returns at once when the command is not `migrate`.
 */
export async function migrateIfAsked(service: string, argv: string[], migrations: Migrations): Promise<void> {
  if (!argv.includes('migrate')) return;
  const config = loadConfig(service, env.migrateConfigSchema);
  const logger = createLogger(service, config.LOG_LEVEL);
  const database = await openDatabase(postgresOptions(config));
  try {
    await database.migrate(migrations);
  } finally {
    await database.close();
  }
  logger.info('migrations applied');
  process.exit(0);
}

/** Prints a start-up failure (bad config, unreachable database) and exits non-zero. */
export function failFast(service: string, err: unknown): never {
  const message = err instanceof Error ? err.message : String(err);
  process.stderr.write(`${service}: cannot start: ${message}\n`);
  process.exit(1);
}
