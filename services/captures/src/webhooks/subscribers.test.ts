import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId, openDatabase, type Database } from '@kg/db';
import { capturesMigrations } from '../module';
import { insertEndpoint, updateEndpoint } from '../store/webhooks';
import { createSubscribers } from './subscribers';

let database: Database;
beforeAll(async () => {
  database = await openDatabase({ dataDir: null });
  await database.migrate(capturesMigrations);
});
afterAll(() => database.close());

const tenant = () => newId('tenant');
/** An endpoint written straight to the table, as another process would: nobody is told. */
async function endpoint(tenantId: string, eventTypes: string[], enabled = true): Promise<string> {
  const now = new Date();
  const row = await insertEndpoint(database.db, {
    id: newId('webhook'),
    tenantId,
    url: 'https://example.com/hook',
    eventTypes,
    enabled,
    secret: 'whsec_test',
    createdAt: now,
    updatedAt: now,
  });
  return row.id;
}
const ids = (rows: Array<{ id: string }>) => rows.map((r) => r.id);

describe('webhook subscribers', () => {
  it('answers the enabled endpoints subscribed to the type, with or without the cache', async () => {
    for (const singleWriter of [false, true]) {
      const subscribers = createSubscribers(database.db, { singleWriter });
      const t = tenant();
      const created = await endpoint(t, ['node.created', 'node.updated']);
      const links = await endpoint(t, ['link.created']);
      await endpoint(t, ['node.created'], false);
      expect(ids(await subscribers.of(t, 'node.created'))).toEqual([created]);
      expect(ids(await subscribers.of(t, 'link.created'))).toEqual([links]);
      expect(await subscribers.of(t, 'capture.processed')).toEqual([]);
      expect(await subscribers.of(tenant(), 'node.created')).toEqual([]);
    }
  });

  it('without singleWriter reads every time: a write elsewhere is seen at once', async () => {
    const subscribers = createSubscribers(database.db, { singleWriter: false });
    const t = tenant();
    expect(await subscribers.of(t, 'node.created')).toEqual([]);
    const id = await endpoint(t, ['node.created']);
    expect(ids(await subscribers.of(t, 'node.created'))).toEqual([id]);
    expect(subscribers.size).toBe(0);
  });

  it('with singleWriter keeps a tenant in memory until told of a change', async () => {
    const subscribers = createSubscribers(database.db, { singleWriter: true });
    const t = tenant();
    expect(await subscribers.of(t, 'node.created')).toEqual([]);
    const id = await endpoint(t, ['node.created']);
    // Not told: the answer held is served (the test's write stands for one nobody announced).
    expect(await subscribers.of(t, 'node.created')).toEqual([]);
    subscribers.changed(t);
    expect(ids(await subscribers.of(t, 'node.created'))).toEqual([id]);

    await updateEndpoint(database.db, t, id, { enabled: false });
    subscribers.changed(t);
    expect(await subscribers.of(t, 'node.created')).toEqual([]);
  });

  it('keeps nothing from a lookup that a change overtook', async () => {
    const subscribers = createSubscribers(database.db, { singleWriter: true });
    const t = tenant();
    const before = subscribers.of(t, 'node.created'); // its read is under way
    subscribers.changed(t); // a change is told meanwhile
    expect(await before).toEqual([]);
    // Nothing was kept from that read: an endpoint written with nobody told is seen next time.
    const id = await endpoint(t, ['node.created']);
    expect(ids(await subscribers.of(t, 'node.created'))).toEqual([id]);
  });

  it('keeps nothing from a lookup the database failed, and reads again next time', async () => {
    let down = true;
    const flaky = new Proxy(database.db, {
      get: (target, prop, receiver) =>
        prop === 'select' && down
          ? () => {
              throw new Error('database unreachable');
            }
          : Reflect.get(target, prop, receiver),
    });
    const subscribers = createSubscribers(flaky, { singleWriter: true });
    const t = tenant();
    const id = await endpoint(t, ['node.created']);
    await expect(subscribers.of(t, 'node.created')).rejects.toThrow('database unreachable');
    expect(subscribers.size).toBe(0);
    down = false;
    expect(ids(await subscribers.of(t, 'node.created'))).toEqual([id]);
  });

  it('holds at most maxTenants tenants, dropping the least recently used', async () => {
    const subscribers = createSubscribers(database.db, { singleWriter: true, maxTenants: 2 });
    const [a, b, c] = [tenant(), tenant(), tenant()];
    await subscribers.of(a, 'node.created');
    await subscribers.of(b, 'node.created');
    await subscribers.of(a, 'node.created'); // a is now the most recently used
    await subscribers.of(c, 'node.created');
    expect(subscribers.size).toBe(2);
    // a is still held (an endpoint written for it unseen); b went, and is read again.
    await endpoint(a, ['node.created']);
    const forB = await endpoint(b, ['node.created']);
    expect(await subscribers.of(a, 'node.created')).toEqual([]);
    expect(ids(await subscribers.of(b, 'node.created'))).toEqual([forB]);
  });
});
