import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { jsonb, pgTable, text, timestamp } from 'drizzle-orm/pg-core';
import { openDatabase, type Database } from './client';
import { openPgliteThread } from './pglite-thread';

const notes = pgTable('notes', {
  id: text().primaryKey(),
  meta: jsonb().$type<{ tags: string[] }>().notNull(),
  createdAt: timestamp({ withTimezone: true, mode: 'string' }).notNull(),
});

/** How many times a 1 ms interval ran while `work` ran: how free the event loop was meanwhile. */
async function ticksDuring(work: () => Promise<unknown>): Promise<number> {
  let ticks = 0;
  const timer = setInterval(() => (ticks += 1), 1);
  try {
    await work();
  } finally {
    clearInterval(timer);
  }
  return ticks;
}

/** ~0.3-1 s of PostgreSQL's CPU on these machines. */
const HEAVY = sql`select count(*)::int as n from generate_series(1, 3000000) g where g % 7 = 3`;

describe('PGlite in a thread of its own (openDatabase thread: true)', () => {
  let database: Database;
  beforeAll(async () => {
    database = await openDatabase({ dataDir: null, thread: true });
    await database.db.execute(
      sql`create table notes (id text primary key, meta jsonb not null, created_at timestamptz not null)`,
    );
  }, 60_000);
  afterAll(() => database.close());

  it('reads and writes through drizzle as in this thread: JSON, timestamps kept as text, bytea, int8, arrays', async () => {
    await database.db
      .insert(notes)
      .values({ id: 'n1', meta: { tags: ['a', 'b'] }, createdAt: '2026-11-29 06:00:00+00' });
    const [row] = await database.db.select().from(notes);
    expect(row).toEqual({ id: 'n1', meta: { tags: ['a', 'b'] }, createdAt: '2026-11-29 06:00:00+00' });
    const raw = (await database.db.execute(
      sql`select ${new Uint8Array([1, 2, 255])}::bytea as b, 9007199254740993::int8 as big, array['x','y'] as xs`,
    )) as unknown as { rows: { b: Uint8Array; big: unknown; xs: string[] }[] };
    expect([...raw.rows[0]!.b]).toEqual([1, 2, 255]);
    expect(String(raw.rows[0]!.big)).toBe('9007199254740993');
    expect(raw.rows[0]!.xs).toEqual(['x', 'y']);
  });

  it('a transaction commits together, and rolls back whole when its function throws or a statement fails', async () => {
    await database.db.transaction(async (tx) => {
      await tx.insert(notes).values({ id: 't1', meta: { tags: [] }, createdAt: '2026-11-29 06:01:00+00' });
      await tx.insert(notes).values({ id: 't2', meta: { tags: [] }, createdAt: '2026-11-29 06:01:00+00' });
    });
    await expect(
      database.db.transaction(async (tx) => {
        await tx.insert(notes).values({ id: 't3', meta: { tags: [] }, createdAt: '2026-11-29 06:02:00+00' });
        throw new Error('changed my mind');
      }),
    ).rejects.toThrow('changed my mind');
    // A duplicate key: PostgreSQL's error crosses with its fields, and the insert before it is undone.
    const failed = await database.db
      .transaction(async (tx) => {
        await tx.insert(notes).values({ id: 't4', meta: { tags: [] }, createdAt: '2026-11-29 06:03:00+00' });
        await tx.insert(notes).values({ id: 't1', meta: { tags: [] }, createdAt: '2026-11-29 06:03:00+00' });
      })
      .then(
        () => null,
        (err: unknown) => err as Error & { cause?: Error & Record<string, string> },
      );
    const pgError = (failed?.cause ?? failed) as Error & Record<string, string>;
    expect(pgError).toMatchObject({ name: 'DatabaseError', code: '23505', constraint: 'notes_pkey', table: 'notes' });
    expect(pgError.message).toContain('duplicate key');
    const ids = (await database.db.select({ id: notes.id }).from(notes)).map((r) => r.id).sort();
    expect(ids).toEqual(['n1', 't1', 't2']);
    // Nothing of the failed transactions is left open: a statement outside runs as before.
    await expect(database.db.execute(sql`select 1`)).resolves.toBeDefined();
  });

  it('the event loop turns while PostgreSQL works, where PGlite in this thread holds it', async () => {
    const inThread = await ticksDuring(() => database.db.execute(HEAVY));
    const local = await openDatabase({ dataDir: null });
    try {
      const here = await ticksDuring(() => local.db.execute(HEAVY));
      expect(here).toBeLessThanOrEqual(2);
      expect(inThread).toBeGreaterThan(20);
    } finally {
      await local.close();
    }
  });

  it('refuses what cannot cross to the thread (serializers, a blob) with a clear error', async () => {
    const thread = await openPgliteThread({ dataDir: null });
    try {
      await expect(thread.query('select $1::text as t', ['x'], { serializers: { 25: String } })).rejects.toThrow(
        'takes rowMode and parsers only',
      );
      await expect(thread.query<{ t: string }>('select $1::text as t', ['x'])).resolves.toMatchObject({
        rows: [{ t: 'x' }],
      });
    } finally {
      await thread.close();
    }
  });
});

describe('the thread ending unasked', () => {
  it('fails the statement it ran and every later one, and says so once', async () => {
    const exits: Error[] = [];
    const thread = await openPgliteThread({ dataDir: null, onThreadExit: (e) => exits.push(e) });
    const running = thread.query('select pg_sleep(5)');
    await new Promise((r) => setTimeout(r, 200));
    await thread.terminate();
    await expect(running).rejects.toThrow("the embedded database's thread ended");
    await expect(thread.query('select 1')).rejects.toThrow("the embedded database's thread ended");
    expect(exits).toHaveLength(1);
    await thread.close();
  });

  it('a closed database is not reported as a crash', async () => {
    const exits: Error[] = [];
    const thread = await openPgliteThread({ dataDir: null, onThreadExit: (e) => exits.push(e) });
    await thread.close();
    expect(exits).toEqual([]);
    await expect(thread.query('select 1')).rejects.toThrow('ended');
  });
});
