import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TOPICS, searchApi, type NodeEvent } from '@kg/contracts';
import { createMemoryBus, newEventId } from '@kg/bus';
import { openDatabase, type Database } from '@kg/db';
import { createLogger } from '@kg/logger';
import { connectService } from '@kg/trpc';
import { createSearchModule, searchMigrations } from '../module';
import { applyNodeEvent } from './node-events';

const tenant = 'tnt_01jd8x6q1bf5r3v2m9w7k4t0za';
const other = 'tnt_01jd8x6q1bf5r3v2m9w7k4t0zb';
const nodeId = 'node_01jd8x6q1bf5r3v2m9w7k4t0za';
const identity = (tenantId: string) => ({ tenantId, subject: 'usr_x', credential: { kind: 'jwt' as const, id: 'j' } });

const snapshot = (title: string, at: string) => ({
  id: nodeId,
  title,
  summary: '',
  tags: ['t'],
  status: 'raw' as const,
  para_item_ids: [],
  updated_at: at,
});
const created = (title: string, at: string): NodeEvent => ({
  id: newEventId(),
  type: 'node.created',
  tenant_id: tenant,
  occurred_at: at,
  data: { node: snapshot(title, at) },
});

let database: Database;
beforeAll(async () => {
  database = await openDatabase({ dataDir: null });
  await database.migrate(searchMigrations);
});
afterAll(() => database.close());

describe('node events consumer', () => {
  it('projects events delivered through the bus and serves them per tenant', async () => {
    const logger = createLogger('test', 'silent');
    const bus = createMemoryBus(logger);
    const module = await createSearchModule({ database, bus, logger });
    const event = created('First', '2026-01-01T00:00:00.000Z');
    await bus.publish(TOPICS.graphNodes, [{ key: tenant, value: event }]);
    await bus.drain();
    const client = connectService('test', 'search', searchApi, { kind: 'local', router: module.router });
    expect(await client.as(identity(tenant)).documents.get({ node_id: nodeId })).toMatchObject({ title: 'First' });
    expect(await client.as(identity(other)).documents.count({})).toEqual({ count: 0 });
  });

  it('handles a redelivered event once, and never lets an older version win', async () => {
    const db = database.db;
    const update: NodeEvent = {
      ...created('Newer', '2026-01-02T00:00:00.000Z'),
      type: 'node.updated',
      data: { node: snapshot('Newer', '2026-01-02T00:00:00.000Z'), changed: ['title'] },
    };
    expect(await applyNodeEvent(db, update)).toBe(true);
    expect(await applyNodeEvent(db, update)).toBe(false);
    await applyNodeEvent(db, created('Stale', '2025-12-31T00:00:00.000Z'));
    const client = connectService('test', 'search', searchApi, {
      kind: 'local',
      router: (
        await createSearchModule({
          database,
          bus: createMemoryBus(createLogger('t', 'silent')),
          logger: createLogger('t', 'silent'),
        })
      ).router,
    });
    expect((await client.as(identity(tenant)).documents.get({ node_id: nodeId })).title).toBe('Newer');
    const deleted: NodeEvent = {
      id: newEventId(),
      type: 'node.deleted',
      tenant_id: tenant,
      occurred_at: '2026-01-03T00:00:00.000Z',
      data: { node_id: nodeId, unlinked_ids: [] },
    };
    await applyNodeEvent(db, deleted);
    expect(await client.as(identity(tenant)).documents.count({})).toEqual({ count: 0 });
  });
});
