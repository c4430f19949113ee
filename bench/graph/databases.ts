import pg from 'pg';
import { openDatabase, type Database } from '@kg/db';
import { graphMigrations } from '../../services/graph/src/module';

export type DbKind = 'pglite' | 'postgres';

/** A fresh, migrated database for one benchmark graph: in-memory PGlite, or a new Postgres database. */
export async function freshDatabase(kind: DbKind, label: string): Promise<{ database: Database; drop(): Promise<void> }> {
  if (kind === 'pglite') {
    const database = await openDatabase({ dataDir: null });
    await database.migrate(graphMigrations);
    return { database, drop: () => database.close() };
  }
  const admin = process.env['DATABASE_URL'] ?? `postgres://kg:kg@127.0.0.1:${process.env['KG_PG_PORT'] ?? '55432'}/kg`;
  const name = `kg_bench_${label}_${Date.now().toString(36)}`;
  const client = new pg.Client({ connectionString: admin });
  await client.connect();
  await client.query(`create database "${name}"`);
  const url = new URL(admin);
  url.pathname = `/${name}`;
  const database = await openDatabase({ url: url.toString(), poolSize: 4 });
  await database.migrate(graphMigrations);
  return {
    database,
    async drop() {
      await database.close();
      await client.query(`drop database if exists "${name}"`);
      await client.end();
    },
  };
}
