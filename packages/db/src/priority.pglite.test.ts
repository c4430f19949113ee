import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { openDatabase, type Database } from './client';
import { inBackground } from './priority';

/**
 * The embedded database serves requests first: a request's statement issued behind a queue of
 * background statements (an import's batches, the pipeline) waits for the one running, not
 * for the queue.
 */
describe.each([
  ['in this thread', false],
  ['in a thread of its own', true],
])('PGlite %s through openDatabase: requests first', (_where, thread) => {
  let database: Database;
  beforeAll(async () => {
    database = await openDatabase({ dataDir: null, thread });
  }, 60_000);
  afterAll(() => database.close());

  it('a request’s query goes ahead of 20 queued background ones; transactions keep their statements together', async () => {
    const done: string[] = [];
    // The request is issued when the first background statement has answered, not after a
    // timer: on a loaded machine a 5 ms timer fired after two 20 ms statements had run.
    let firstAnswered!: () => void;
    const first = new Promise<void>((resolve) => (firstAnswered = resolve));
    const background = inBackground(() =>
      Array.from({ length: 20 }, (_, i) =>
        database.db.execute(sql`select pg_sleep(0.02)`).then(() => {
          done.push(`bg-${i}`);
          if (i === 0) firstAnswered();
        }),
      ),
    );
    await first;
    await database.db.execute(sql`select 1`);
    done.push('request');
    // A background transaction of several statements is not cut by a request.
    const tx = inBackground(() =>
      database.db.transaction(async (t) => {
        await t.execute(sql`create temporary table held (x int)`);
        await t.execute(sql`select pg_sleep(0.02)`);
        await t.execute(sql`insert into held values (1)`);
        const counted = (await t.execute(sql`select count(*)::int as n from held`)) as unknown as {
          rows: { n: number }[];
        };
        return counted.rows[0];
      }),
    );
    await Promise.all(background);
    expect(await tx).toEqual({ n: 1 });
    expect(done.indexOf('request')).toBeLessThanOrEqual(2);
  }, 30_000);
});
