import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { enqueueEvent, newEventId } from '@kg/bus';
import { TOPICS } from '@kg/contracts';
import { openDatabase, type Database } from '@kg/db';
import { capturesMigrations } from '../module';
import { outbox } from '../store/schema';
import { captureWrite } from './changes';
import type { CapturesContext } from './context';

let database: Database;
let wakes = 0;
const ctx = () => ({ db: database.db, afterCommit: () => void wakes++ }) as unknown as CapturesContext;

beforeAll(async () => {
  database = await openDatabase({ dataDir: null });
  await database.migrate(capturesMigrations);
});
afterAll(() => database.close());

describe('captureWrite', () => {
  it('wakes the outbox relay after a write that enqueued an event, and only then', async () => {
    wakes = 0;
    await captureWrite(ctx(), (tx) => tx.execute(sql`select 1`));
    expect(wakes).toBe(0);

    const event = { id: newEventId(), tenant_id: 'tnt_01jd8x6q1bf5r3v2m9w7k4t0za' };
    await captureWrite(ctx(), (tx) => enqueueEvent(tx, outbox, TOPICS.captureChanges, event));
    expect(wakes).toBe(1);
  });

  it('does not wake the relay when the transaction rolled back', async () => {
    wakes = 0;
    const event = { id: newEventId(), tenant_id: 'tnt_01jd8x6q1bf5r3v2m9w7k4t0za' };
    const failed = captureWrite(ctx(), async (tx) => {
      await enqueueEvent(tx, outbox, TOPICS.captureChanges, event);
      throw new Error('rolled back');
    });
    await expect(failed).rejects.toThrow('rolled back');
    expect(wakes).toBe(0);
  });
});
