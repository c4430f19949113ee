import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { and, asc, eq, sql } from 'drizzle-orm';
import { ParaItemEvent, TOPICS, type graphApi, type Identity } from '@kg/contracts';
import { newId, openDatabase, type Database } from '@kg/db';
import { createLogger } from '@kg/logger';
import type { ServiceHandle } from '@kg/trpc';
import { paraMigrations } from '../module';
import { listItems, type ItemRow } from '../store/items';
import { outbox } from '../store/schema';
import type { ParaContext } from './context';
import {
  archiveTransition,
  completeTransition,
  createItem,
  getItem,
  toItem,
  unarchiveTransition,
  undoCompleteTransition,
} from './items';
import { archiveItem, completeItem, patchItem, unarchiveItem, undoCompleteItem } from './lifecycle';

const now = new Date('2026-11-23T12:00:00.000Z');
const row = (over: Partial<ItemRow>): ItemRow => ({
  id: 'para_01jd8x6q1bf5r3v2m9w7k4t0za',
  tenantId: 'tnt_01jd8x6q1bf5r3v2m9w7k4t0za',
  category: 'projects',
  label: 'L',
  description: '',
  slug: 'l',
  status: 'active',
  restoreStatus: null,
  associationsPending: false,
  statusVersion: 4,
  version: 1,
  createdAt: now,
  updatedAt: now,
  completedAt: null,
  archivedAt: null,
  ensureKey: null,
  ...over,
});

describe('PARA item transitions', () => {
  it('archive remembers the status to restore, marks the associations pending and bumps statusVersion; again is a no-op', () => {
    expect(archiveTransition(row({ status: 'completed' }), now).patch).toEqual({
      status: 'archived',
      restoreStatus: 'completed',
      archivedAt: now,
      associationsPending: true,
      statusVersion: 5,
    });
    expect(archiveTransition(row({ status: 'archived' }), now).patch).toEqual({});
  });

  it('unarchive restores the remembered status (active by default) and bumps statusVersion; on a live item it is a no-op', () => {
    expect(unarchiveTransition(row({ status: 'archived', restoreStatus: 'completed' })).patch).toMatchObject({
      status: 'completed',
      restoreStatus: null,
      archivedAt: null,
      associationsPending: true,
      statusVersion: 5,
    });
    expect(unarchiveTransition(row({ status: 'archived' })).patch.status).toBe('active');
    expect(unarchiveTransition(row({ status: 'active' })).patch).toEqual({});
  });

  it('complete and undo-complete: projects only, not while archived, idempotent', () => {
    for (const category of ['areas', 'resources'] as const) {
      expect(() => completeTransition(row({ category }), now)).toThrow(/projects/);
      expect(() => undoCompleteTransition(row({ category, status: 'completed' }))).toThrow(/projects/);
    }
    expect(() => completeTransition(row({ status: 'archived' }), now)).toThrow(/Unarchive/);
    expect(() => undoCompleteTransition(row({ status: 'archived' }))).toThrow(/Unarchive/);
    expect(completeTransition(row({}), now).patch).toEqual({ status: 'completed', completedAt: now });
    expect(completeTransition(row({ status: 'completed' }), now).patch).toEqual({});
    expect(undoCompleteTransition(row({ status: 'completed' })).patch).toEqual({ status: 'active', completedAt: null });
    expect(undoCompleteTransition(row({})).patch).toEqual({});
  });
});

describe('para.item.changed in the outbox', () => {
  let database: Database;
  beforeAll(async () => {
    database = await openDatabase({ dataDir: null });
    await database.migrate(paraMigrations);
  }, 60_000);
  afterAll(() => database.close());

  /** A graph peer that confirms every archive and restore of the item's associations. */
  const graph = {
    service: 'graph',
    as: () => ({
      assignments: { archiveItem: async () => ({ archived: 0 }), restoreItem: async () => ({ restored: 0 }) },
    }),
  } as unknown as ServiceHandle<typeof graphApi>;
  const scorer = { method: 'none', count: async () => 0, page: async () => ({ nodes: [], next: null }) };

  /** A fresh tenant, a context counting the relay's wake-ups, and the tenant's para.item.changed events. */
  function tenant() {
    const who: Identity = { tenantId: newId('tenant'), subject: 'u', credential: { kind: 'jwt', id: 'j' } };
    const wakes = { count: 0 };
    const ctx: ParaContext = {
      db: database.db,
      graph,
      scorer,
      logger: createLogger('test', 'silent'),
      now: () => new Date(),
      afterCommit: () => void wakes.count++,
    };
    const events = async () => {
      const rows = await database.db
        .select({ key: outbox.key, payload: outbox.payload })
        .from(outbox)
        .where(and(eq(outbox.key, who.tenantId), eq(outbox.topic, TOPICS.paraItems)))
        .orderBy(asc(outbox.seq));
      return rows.map((r) => ParaItemEvent.parse(r.payload));
    };
    return { who, ctx, wakes, events };
  }

  it('creating an item writes change created, version 1, with the item as the API answers it, and wakes the relay', async () => {
    const { who, ctx, wakes, events } = tenant();
    const row = await createItem(ctx, who.tenantId, { category: 'areas', label: 'Health', description: 'Sleep' });
    const [event, ...more] = await events();
    expect(more).toEqual([]);
    expect(event).toMatchObject({
      id: expect.stringMatching(/^evt_/),
      type: 'para.item.changed',
      tenant_id: who.tenantId,
      version: 1,
      data: { change: 'created', item_id: row.id, item: await getItem(ctx, who.tenantId, row.id) },
    });
    expect(event!.data.item).toEqual(toItem(row));
    expect(wakes.count).toBe(1);
  });

  it('every update, complete, archive and unarchive writes one event with the next version; a no-op writes none', async () => {
    const { who, ctx, events } = tenant();
    const { id } = await createItem(ctx, who.tenantId, { category: 'projects', label: 'Garden' });
    const answers = [
      await patchItem(ctx, who, id, { label: 'Vegetable garden' }),
      await completeItem(ctx, who, id),
      await completeItem(ctx, who, id), // already completed: nothing written
      await archiveItem(ctx, who, id),
      await archiveItem(ctx, who, id), // already archived: nothing written
      await unarchiveItem(ctx, who, id),
      await undoCompleteItem(ctx, who, id),
      await patchItem(ctx, who, id, { status: 'archived' }),
      await patchItem(ctx, who, id, {}), // every PATCH is a write
    ];
    const all = await events();
    expect(all.map((e) => [e.version, e.data.change, e.data.item?.status])).toEqual([
      [1, 'created', 'active'],
      [2, 'updated', 'active'],
      [3, 'updated', 'completed'],
      [4, 'archived', 'archived'],
      [5, 'updated', 'completed'],
      [6, 'updated', 'active'],
      [7, 'archived', 'archived'],
      [8, 'updated', 'archived'],
    ]);
    // Each event carries the item exactly as that request answered it.
    const written = answers.filter((_, i) => ![2, 4].includes(i));
    expect(all.slice(1).map((e) => e.data.item)).toEqual(written);
    expect(all.every((e) => e.data.item_id === id)).toBe(true);
    expect(new Set(all.map((e) => e.id)).size).toBe(all.length);
  });

  it('a rejected change writes no event and does not wake the relay', async () => {
    const { who, ctx, wakes, events } = tenant();
    const { id } = await createItem(ctx, who.tenantId, { category: 'areas', label: 'Finance' });
    await expect(completeItem(ctx, who, id)).rejects.toThrow(/projects/);
    await expect(archiveItem(ctx, who, 'para_01jd8x6q1bf5r3v2m9w7k4t0zz')).rejects.toThrow(/not found/i);
    expect((await events()).map((e) => e.data.change)).toEqual(['created']);
    expect(wakes.count).toBe(1);
  });

  it('the event commits with the write: an outbox that cannot take it fails the write, leaving neither', async () => {
    const { who, ctx, events } = tenant();
    const { id } = await createItem(ctx, who.tenantId, { category: 'resources', label: 'Recipes' });
    await database.db.execute(sql`alter table para.outbox rename to outbox_away`);
    try {
      await expect(createItem(ctx, who.tenantId, { category: 'resources', label: 'Books' })).rejects.toThrow();
      await expect(patchItem(ctx, who, id, { label: 'Cooking' })).rejects.toThrow();
    } finally {
      await database.db.execute(sql`alter table para.outbox_away rename to outbox`);
    }
    const items = await listItems(database.db, who.tenantId);
    expect(items.map((r) => [r.label, r.version])).toEqual([['Recipes', 1]]);
    expect((await events()).map((e) => e.data.change)).toEqual(['created']);
  });
});
