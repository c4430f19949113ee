import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { and, eq } from 'drizzle-orm';
import { TOPICS, type graphApi } from '@kg/contracts';
import { newId, openDatabase, type Database } from '@kg/db';
import { createLogger } from '@kg/logger';
import type { ServiceHandle } from '@kg/trpc';
import { paraMigrations } from '../module';
import { listItems } from '../store/items';
import { items, outbox } from '../store/schema';
import type { ParaContext } from './context';
import { ensureItem } from './ensure';
import { createItem } from './items';
import { archiveItem } from './lifecycle';

let database: Database;
beforeAll(async () => {
  database = await openDatabase({ dataDir: null });
  await database.migrate(paraMigrations);
}, 60_000);
afterAll(() => database.close());

const graph = {
  service: 'graph',
  as: () => ({
    assignments: { archiveItem: async () => ({ archived: 0 }), restoreItem: async () => ({ restored: 0 }) },
  }),
} as unknown as ServiceHandle<typeof graphApi>;

function tenant() {
  const tenantId = newId('tenant');
  const ctx: ParaContext = {
    db: database.db,
    graph,
    scorer: { method: 'none', count: async () => 0, page: async () => ({ nodes: [], next: null }) },
    logger: createLogger('test', 'silent'),
    now: () => new Date(),
    afterCommit: () => {},
  };
  const who = { tenantId, subject: 'u', credential: { kind: 'jwt' as const, id: 'j' } };
  return { tenantId, ctx, who };
}

describe('items.ensure (a PARA item by label)', () => {
  it('makes the item once: twenty concurrent calls for one label answer one item, one created', async () => {
    const { tenantId, ctx } = tenant();
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        ensureItem(ctx, tenantId, { category: 'resources', label: i % 2 ? 'Databases' : '  databases ' }),
      ),
    );
    expect(new Set(answers.map((a) => a.row.id)).size).toBe(1);
    expect(answers.filter((a) => a.created)).toHaveLength(1);
    const all = await listItems(database.db, tenantId);
    expect(all.map((r) => [r.category, r.label, r.slug])).toEqual([
      ['resources', answers.find((a) => a.created)!.row.label, 'databases'],
    ]);
    // One para.item.changed (created), as for any new item.
    const events = await database.db
      .select()
      .from(outbox)
      .where(and(eq(outbox.key, tenantId), eq(outbox.topic, TOPICS.paraItems)));
    expect(events).toHaveLength(1);
  });

  it('the unique key holds even without the lock: a second row for the same key is refused by the database', async () => {
    const { tenantId, ctx } = tenant();
    const { row } = await ensureItem(ctx, tenantId, { category: 'resources', label: 'Recipes' });
    await expect(database.db.insert(items).values({ ...row, id: newId('para'), slug: 'recipes-2' })).rejects.toThrow();
  });

  it('finds the tenant’s own active item of that label (any case), never another tenant’s or another category’s', async () => {
    const a = tenant();
    const b = tenant();
    const own = await createItem(a.ctx, a.tenantId, { category: 'resources', label: 'Tech' });
    await createItem(a.ctx, a.tenantId, { category: 'projects', label: 'Reading' });
    await createItem(b.ctx, b.tenantId, { category: 'resources', label: 'Reading' });
    const found = await ensureItem(a.ctx, a.tenantId, { category: 'resources', label: 'TECH' });
    expect(found).toMatchObject({ created: false, row: { id: own.id, label: 'Tech' } });
    const made = await ensureItem(a.ctx, a.tenantId, { category: 'resources', label: 'Reading' });
    expect(made.created).toBe(true);
    expect((await listItems(database.db, b.tenantId)).map((r) => r.label)).toEqual(['Reading']);
  });

  it('an archived item is not reused: the next ensure makes a new active one', async () => {
    const { tenantId, ctx, who } = tenant();
    const first = await ensureItem(ctx, tenantId, { category: 'resources', label: 'Old' });
    await archiveItem(ctx, who, first.row.id);
    const second = await ensureItem(ctx, tenantId, { category: 'resources', label: 'Old' });
    expect(second.created).toBe(true);
    expect(second.row.id).not.toBe(first.row.id);
    expect(second.row.slug).toBe('old-2');
    expect((await ensureItem(ctx, tenantId, { category: 'resources', label: 'old' })).row.id).toBe(second.row.id);
  });
});
