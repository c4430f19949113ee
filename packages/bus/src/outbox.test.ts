import { afterEach, describe, expect, it } from 'vitest';
import { pgSchema } from 'drizzle-orm/pg-core';
import { sql } from 'drizzle-orm';
import { TOPICS, type NodeEvent } from '@kg/contracts';
import { openDatabase, outboxTable, type Database } from '@kg/db';
import { createLogger } from '@kg/logger';
import { createMemoryBus } from './memory-bus';
import { createOutboxRelay, enqueueEvent, enqueuedIn, newEventId } from './outbox';
import type { EventBus } from './port';

const table = outboxTable(pgSchema('relay_test'));
const logger = createLogger('test', 'silent');
const tenant = 'tnt_01jd8x6q1bf5r3v2m9w7k4t0za';
const nodeId = 'node_01jd8x6q1bf5r3v2m9w7k4t0za';

const deleted = (n: number): NodeEvent => ({
  id: newEventId(),
  type: 'node.deleted',
  tenant_id: tenant,
  occurred_at: new Date(Date.UTC(2026, 0, 1, 0, 0, n)).toISOString(),
  version: n,
  data: { node_id: nodeId, unlinked_ids: [] },
});

let database: Database | null = null;

async function setup() {
  database = await openDatabase({ dataDir: null });
  await database.db.execute(sql`create schema relay_test`);
  await database.db
    .execute(sql`create table relay_test.outbox (id text primary key, seq bigint generated always as identity, topic text not null, key text not null,
    payload jsonb not null, created_at timestamptz not null default clock_timestamp(), published_at timestamptz, attempts integer not null default 0)`);
  return database;
}

afterEach(async () => {
  await database?.close();
  database = null;
});

describe('outbox relay', () => {
  it('publishes committed events in order and only once', async () => {
    const { db } = await setup();
    const bus = createMemoryBus(logger);
    const seen: string[] = [];
    await bus.subscribe({ topic: TOPICS.graphNodes, group: 'g', handler: async (e) => void seen.push(e.id) });
    const events = [deleted(1), deleted(2), deleted(3)];
    await db.transaction(async (tx) => {
      for (const e of events) await enqueueEvent(tx, table, TOPICS.graphNodes, e);
    });
    const relay = createOutboxRelay({ db, table, bus, logger });
    expect(await relay.flush()).toBe(3);
    expect(await relay.flush()).toBe(0);
    await bus.drain();
    expect(seen).toEqual(events.map((e) => e.id));
  });

  it('keeps events when the bus is down and delivers them once it is back', async () => {
    const { db } = await setup();
    let up = false;
    const delivered: unknown[] = [];
    const flaky: EventBus = {
      kind: 'memory',
      publish: async (_t, messages) => {
        if (!up) throw new Error('broker down');
        delivered.push(...messages);
      },
      subscribe: async () => {},
      start: async () => {},
      stop: async () => {},
      ready: async () => up,
    };
    await enqueueEvent(db, table, TOPICS.graphNodes, deleted(1));
    const relay = createOutboxRelay({ db, table, bus: flaky, logger });
    expect(await relay.flush()).toBe(0);
    const pending = await db.select().from(table);
    expect(pending[0]?.publishedAt).toBeNull();
    up = true;
    expect(await relay.flush()).toBe(1);
    expect(delivered).toHaveLength(1);
  });

  it('prunes published rows past their retention and keeps unpublished ones', async () => {
    const { db } = await setup();
    let up = true;
    const bus: EventBus = {
      kind: 'memory',
      publish: async () => {
        if (!up) throw new Error('down');
      },
      subscribe: async () => {},
      start: async () => {},
      stop: async () => {},
      ready: async () => true,
    };
    const relay = createOutboxRelay({ db, table, bus, logger, retentionMs: 0, pruneEveryMs: 0 });
    await enqueueEvent(db, table, TOPICS.graphNodes, deleted(1));
    expect(await relay.flush()).toBe(1);
    // Its prune may run in the millisecond the row was published (then the row is not yet past
    // a retention of 0): the next pass's prune, a clock tick later, is the one that must take it.
    await new Promise((r) => setTimeout(r, 5));
    expect(await relay.flush()).toBe(0);
    expect(await db.select().from(table)).toEqual([]);
    up = false;
    await enqueueEvent(db, table, TOPICS.graphNodes, deleted(2));
    await relay.flush();
    const left = await db.select().from(table);
    expect(left).toHaveLength(1);
    expect(left[0]?.publishedAt).toBeNull();
  });

  it('tells the transactions that enqueued an event from those that did not', async () => {
    const { db } = await setup();
    const seen: boolean[] = [];
    await db.transaction(async (tx) => {
      seen.push(enqueuedIn(tx));
      await enqueueEvent(tx, table, TOPICS.graphNodes, deleted(1));
      seen.push(enqueuedIn(tx));
    });
    await db.transaction(async (tx) => {
      await tx.execute(sql`select 1`);
      seen.push(enqueuedIn(tx));
    });
    expect(seen).toEqual([false, true, false]);
  });

  it('does not publish events of a rolled-back transaction', async () => {
    const { db } = await setup();
    await db
      .transaction(async (tx) => {
        await enqueueEvent(tx, table, TOPICS.graphNodes, deleted(1));
        throw new Error('rollback');
      })
      .catch(() => undefined);
    const relay = createOutboxRelay({ db, table, bus: createMemoryBus(logger), logger });
    expect(await relay.flush()).toBe(0);
  });
});
