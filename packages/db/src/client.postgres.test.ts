import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { openDatabase, type Database } from './client';

/** The pool's statement timeout on real PostgreSQL (GRAPH_TEST_PG_URL, set by `npm run test:postgres`). */
const url = process.env['GRAPH_TEST_PG_URL'];

describe.skipIf(!url && !process.env['CI'])('statement timeout on PostgreSQL', () => {
  let database: Database;
  beforeAll(async () => {
    database = await openDatabase({ url: url!, statementTimeoutMs: 300, poolSize: 2 });
  });
  afterAll(() => database?.close());

  it('a statement beyond DATABASE_STATEMENT_TIMEOUT_MS fails with a clear error; the pool stays usable', async () => {
    const started = Date.now();
    const err = await database.db.execute(sql`select pg_sleep(3)`).then(
      () => null,
      (e: unknown) => e as Error & { cause?: Error & { code?: string } },
    );
    expect(err).not.toBeNull();
    const cause = err?.cause ?? err;
    expect(cause?.message).toBe('canceling statement due to statement timeout');
    expect((cause as { code?: string }).code).toBe('57014'); // query_canceled
    expect(Date.now() - started).toBeLessThan(2000);
    // Within the limit, and on the same pool afterwards, statements run.
    const after = (await database.db.execute(sql`select pg_sleep(0.05), 1 as one`)) as unknown as { rows: unknown[] };
    expect(after.rows[0]).toMatchObject({ one: 1 });
  });
});
