import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId, openDatabase, type Database } from '@kg/db';
import { createLogger } from '@kg/logger';
import { searchMigrations } from '../module';
import { findDocumentRow, tombstoneDocument, upsertDocument } from '../store/documents';
import { processedEvents } from '../store/schema';
import { createPruneJob } from './prune';

const tenant = 'tnt_01jd8x6q1bf5r3v2m9w7k4t0za';
const DAY = 24 * 3600 * 1000;
let database: Database;
beforeAll(async () => {
  database = await openDatabase({ dataDir: null });
  await database.migrate(searchMigrations);
}, 60_000);
afterAll(() => database.close());

describe('search prune job', () => {
  it('deletes ledger rows and tombstones past the retention, and nothing else', async () => {
    const db = database.db;
    const now = new Date('2026-03-01T00:00:00Z');
    const old = new Date(now.getTime() - 8 * DAY);
    const recent = new Date(now.getTime() - DAY);
    await db.insert(processedEvents).values([
      { consumer: 'c', eventId: 'evt_old', processedAt: old },
      { consumer: 'c', eventId: 'evt_recent', processedAt: recent },
    ]);
    const [gone, kept, alive] = [newId('node'), newId('node'), newId('node')];
    await tombstoneDocument(db, tenant, gone, 2, old);
    await tombstoneDocument(db, tenant, kept, 2, recent);
    const doc = { title: 'alive', summary: '', tags: [], paraItemIds: [], status: 'raw', updatedAt: old, version: 1 };
    await upsertDocument(db, tenant, { nodeId: alive, ...doc });

    const job = createPruneJob({
      db,
      logger: createLogger('test', 'silent'),
      intervalMs: 60_000,
      retentionMs: 7 * DAY,
      now: () => now,
    });
    expect(await job.runOnce()).toEqual({ processedEvents: 1, tombstones: 1 });
    expect((await db.select().from(processedEvents)).map((r) => r.eventId)).toEqual(['evt_recent']);
    expect(await findDocumentRow(db, tenant, gone)).toBeNull();
    expect(await findDocumentRow(db, tenant, kept)).toMatchObject({ version: 2 });
    expect(await findDocumentRow(db, tenant, alive)).toMatchObject({ title: 'alive' });
    expect(await job.runOnce()).toEqual({ processedEvents: 0, tombstones: 0 });
    job.start();
    await job.stop();
  });
});
