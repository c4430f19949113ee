import { sql } from 'drizzle-orm';
import type { PoolConfig } from 'pg';
import { parseIntoClientConfig } from 'pg-connection-string';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import type { PGlite } from '@electric-sql/pglite';
import { PriorityGate } from './priority';
import { openPglite, type PgliteOpenOptions } from './pglite-open';
import type { ThreadedPglite } from './pglite-thread';

/** The drizzle database type both adapters satisfy; stores are written against it only. */
/** Drizzle journals live in one schema, one table per service (its own schema is created by its first migration). */
const MIGRATIONS_SCHEMA = 'drizzle';

export type Db = PgDatabase<PgQueryResultHKT, Record<string, never>>;
/** A transaction handle, for store functions that join a caller's transaction. */
export type Tx = Parameters<Parameters<Db['transaction']>[0]>[0];
export type DbOrTx = Db | Tx;

export interface Database {
  readonly kind: 'pglite' | 'postgres';
  readonly db: Db;
  ping(): Promise<boolean>;
  close(): Promise<void>;
  /** Runs one service's committed SQL migrations (drizzle journal kept in that service's schema). */
  migrate(opts: { migrationsFolder: string; schema: string }): Promise<void>;
}

export interface PostgresOptions {
  /** postgres:// URL; `?sslmode=` (and sslrootcert, sslcert, sslkey) choose TLS as pg reads them. */
  url: string;
  poolSize?: number;
  /** PostgreSQL statement_timeout of every pool connection: a longer statement fails. */
  statementTimeoutMs?: number;
  /** Limit on opening one connection; beyond it the query that needed it fails. */
  connectTimeoutMs?: number;
}

export interface PgliteOptions extends PgliteOpenOptions {
  /**
   * PostgreSQL's `shared_buffers` inside PGlite's WebAssembly memory, in MiB (default 128,
   * PostgreSQL's own). Fewer keep the process smaller once the buffers fill; a page beyond them
   * is read from the data folder's file, which the OS caches outside the process
   * (docs/configuration.md).
   */
  sharedBuffersMb?: number;
  /**
   * Runs PGlite in a worker thread of its own (pglite-thread.ts), so statements never hold the
   * event loop; default: in this thread (tests, scripts).
   */
  thread?: boolean;
  /** With `thread`: called if the thread ends unasked; nothing answers after it. */
  onThreadExit?: (error: Error) => void;
}

export type DatabaseOptions = PostgresOptions | PgliteOptions;

/** The Postgres options of a service's parsed config (packages/config `env.serviceBase`). */
export const postgresOptions = (c: {
  DATABASE_URL: string;
  DATABASE_STATEMENT_TIMEOUT_MS: number;
  DATABASE_CONNECT_TIMEOUT_MS: number;
}): PostgresOptions => ({
  url: c.DATABASE_URL,
  statementTimeoutMs: c.DATABASE_STATEMENT_TIMEOUT_MS,
  connectTimeoutMs: c.DATABASE_CONNECT_TIMEOUT_MS,
});

/**
 * The pg pool settings for a URL: the URL parsed the way pg parses it (so `sslmode`,
 * `sslrootcert`… hold), plus the pool size and both timeouts.
 */
export function pgPoolConfig(opts: PostgresOptions): PoolConfig {
  return {
    ...(parseIntoClientConfig(opts.url) as PoolConfig),
    max: opts.poolSize ?? 10,
    statement_timeout: opts.statementTimeoutMs ?? 30_000,
    connectionTimeoutMillis: opts.connectTimeoutMs ?? 10_000,
  };
}

/**
 * Opens Postgres (`url`, through `pg`) or the embedded PGlite (`dataDir`; null keeps it
 * in memory). Both run the same drizzle schema and the same SQL migrations.
 */
export async function openDatabase(opts: DatabaseOptions): Promise<Database> {
  if ('url' in opts) {
    const { Pool } = await import('pg');
    const { drizzle } = await import('drizzle-orm/node-postgres');
    const { migrate } = await import('drizzle-orm/node-postgres/migrator');
    const pool = new Pool(pgPoolConfig(opts));
    // An idle connection that breaks (server restart) must not crash the process; the next query reconnects.
    pool.on('error', () => undefined);
    const db = drizzle({ client: pool, casing: 'snake_case' });
    return {
      kind: 'postgres',
      db: db as unknown as Db,
      ping: () => ping(db as unknown as Db),
      close: () => pool.end(),
      migrate: (m) =>
        migrate(db, {
          migrationsFolder: m.migrationsFolder,
          migrationsSchema: MIGRATIONS_SCHEMA,
          migrationsTable: `migrations_${m.schema}`,
        }),
    };
  }
  const { drizzle } = await import('drizzle-orm/pglite');
  const { migrate } = await import('drizzle-orm/pglite/migrator');
  const { thread, onThreadExit, ...open } = opts;
  const opened: PgliteClient = thread
    ? // Imported only here: it resolves tsx's loader for the thread, which no other service needs.
      await (await import('./pglite-thread')).openPgliteThread(onThreadExit ? { ...open, onThreadExit } : open)
    : await openPglite(open);
  // In a thread, one statement may wait there while another runs, so the thread never idles
  // for this one's turn of the event loop; in this thread, one at a time.
  const client = prioritised(opened, new PriorityGate(thread ? 2 : 1));
  const db = drizzle({ client: client as PGlite, casing: 'snake_case' });
  return {
    kind: 'pglite',
    db: db as unknown as Db,
    ping: () => ping(db as unknown as Db),
    close: () => opened.close(),
    migrate: (m) =>
      migrate(db, {
        migrationsFolder: m.migrationsFolder,
        migrationsSchema: MIGRATIONS_SCHEMA,
        migrationsTable: `migrations_${m.schema}`,
      }),
  };
}

/** What drizzle and the gate use of PGlite, in this thread or in one of its own (pglite-thread.ts). */
type PgliteClient = PGlite | ThreadedPglite;

/** What PGlite runs through its one backend, one at a time: the statements drizzle sends. */
const SERIALISED = new Set<PropertyKey>(['query', 'exec', 'transaction', 'sql']);

/**
 * PGlite runs one statement (or transaction) at a time, first come first served (in this
 * thread or in its own). Through this, the next is chosen by priority instead: statements of
 * requests go ahead of those of background work (inBackground: the pipeline, imports,
 * consumers, periodic jobs), so a busy server still answers its users at the pace of one
 * statement, not of a queue of them. PostgreSQL needs none of this (a connection per query).
 */
function prioritised<C extends object>(client: C, gate = new PriorityGate()): C {
  return new Proxy(client, {
    get(target, prop) {
      const value: unknown = Reflect.get(target, prop, target);
      if (typeof value !== 'function') return value;
      // Bound to PGlite itself: its private fields are not reachable through a proxy.
      const method = (value as (...args: unknown[]) => unknown).bind(target);
      if (!SERIALISED.has(prop)) return method;
      // A transaction has the database to itself: nothing else may run between its statements.
      const exclusive = prop === 'transaction';
      return (...args: unknown[]) => gate.run(async () => method(...args), undefined, exclusive);
    },
  });
}

async function ping(db: Db): Promise<boolean> {
  try {
    await db.execute(sql`select 1`);
    return true;
  } catch {
    return false;
  }
}
