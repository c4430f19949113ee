import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NodeEvent, TOPICS, searchApi } from '@kg/contracts';
import { createMemoryBus, newEventId } from '@kg/bus';
import { newId, openDatabase, type Database } from '@kg/db';
import { createLogger } from '@kg/logger';
import { connectService } from '@kg/trpc';
import { createMemoryVectorIndex } from '@kg/vectors';
import { createSearchModule, searchMigrations } from '../module';
import { fakeGraph, testEmbedder } from '../testing';
import { findDocumentRow } from '../store/documents';
import { applyNodeEvent } from './node-events';

const tenant = 'tnt_01jd8x6q1bf5r3v2m9w7k4t0za';
const other = 'tnt_01jd8x6q1bf5r3v2m9w7k4t0zb';
const identity = (tenantId: string) => ({ tenantId, subject: 'usr_x', credential: { kind: 'jwt' as const, id: 'j' } });
const logger = createLogger('test', 'silent');
const indexDeps = () => ({ vectors: createMemoryVectorIndex(), embedder: testEmbedder(), graph: fakeGraph(new Map()) });

const snapshot = (nodeId: string, title: string) => ({
  id: nodeId,
  title,
  summary: '',
  tags: ['t'],
  status: 'raw' as const,
  para_item_ids: [],
  updated_at: '2026-01-01T00:00:00.000Z',
});
const envelope = (version: number) => ({
  id: newEventId(),
  tenant_id: tenant,
  occurred_at: '2026-01-01T00:00:00.000Z',
  version,
});
const created = (nodeId: string, title: string, version: number): NodeEvent => ({
  ...envelope(version),
  type: 'node.created',
  data: { node: snapshot(nodeId, title) },
});
const updated = (nodeId: string, title: string, version: number): NodeEvent => ({
  ...envelope(version),
  type: 'node.updated',
  data: { node: snapshot(nodeId, title), changed: ['title'] },
});
const deleted = (nodeId: string, version: number): NodeEvent => ({
  ...envelope(version),
  type: 'node.deleted',
  data: { node_id: nodeId, unlinked_ids: [] },
});

let database: Database;
let search: ReturnType<typeof client>;
const client = (router: Awaited<ReturnType<typeof createSearchModule>>['router']) =>
  connectService('gateway', 'search', searchApi, { kind: 'local', router }).as(identity(tenant));

beforeAll(async () => {
  database = await openDatabase({ dataDir: null });
  await database.migrate(searchMigrations);
  search = client(
    (await createSearchModule({ database, bus: createMemoryBus(logger), logger, ...indexDeps() })).router,
  );
}, 60_000);
afterAll(() => database.close());

const titleOf = (nodeId: string) =>
  search.documents.get({ node_id: nodeId }).then(
    (d) => d.title,
    () => null,
  );

describe('node events consumer', () => {
  it('projects events delivered through the bus and serves them per tenant', async () => {
    const bus = createMemoryBus(logger);
    const module = await createSearchModule({ database, bus, logger, ...indexDeps() });
    const nodeId = newId('node');
    await bus.publish(TOPICS.graphNodes, [{ key: tenant, value: created(nodeId, 'First', 1) }]);
    await bus.drain();
    const c = connectService('gateway', 'search', searchApi, { kind: 'local', router: module.router });
    expect(await c.as(identity(tenant)).documents.get({ node_id: nodeId })).toMatchObject({ title: 'First' });
    expect(await c.as(identity(other)).documents.count({})).toEqual({ count: 0 });
  });

  it('parses node events from before source_capture_id existed, and keeps the field in newer ones', () => {
    const old = created(newId('node'), 'Old', 1);
    expect('source_capture_id' in (old.type === 'node.created' ? old.data.node : {})).toBe(false);
    expect(NodeEvent.parse(old)).toEqual(old);
    const capture = 'cap_01jd8x6q1bf5r3v2m9w7k4t0za';
    for (const source_capture_id of [capture, null]) {
      const event = { ...old, data: { node: { ...snapshot(newId('node'), 'New'), source_capture_id } } };
      expect(NodeEvent.parse(event)).toEqual(event);
    }
    const bad = { ...old, data: { node: { ...snapshot(newId('node'), 'Bad'), source_capture_id: 'node_x' } } };
    expect(NodeEvent.safeParse(bad).success).toBe(false);
  });

  it('handles a redelivered event once', async () => {
    const nodeId = newId('node');
    const event = created(nodeId, 'Once', 1);
    expect(await applyNodeEvent(database.db, event)).toBe(true);
    expect(await applyNodeEvent(database.db, event)).toBe(false);
    expect(await titleOf(nodeId)).toBe('Once');
  });

  it('ignores an update older than (or as old as) the stored version', async () => {
    const nodeId = newId('node');
    await applyNodeEvent(database.db, created(nodeId, 'v1', 1));
    await applyNodeEvent(database.db, updated(nodeId, 'v5', 5));
    await applyNodeEvent(database.db, updated(nodeId, 'v3', 3));
    await applyNodeEvent(database.db, updated(nodeId, 'also v5', 5));
    expect(await titleOf(nodeId)).toBe('v5');
    expect((await findDocumentRow(database.db, tenant, nodeId))?.version).toBe(5);
  });

  it('a late update after the delete does not resurrect the node (tombstone)', async () => {
    const nodeId = newId('node');
    const before = (await search.documents.count({})).count;
    await applyNodeEvent(database.db, created(nodeId, 'doomed', 1));
    await applyNodeEvent(database.db, deleted(nodeId, 3));
    await applyNodeEvent(database.db, updated(nodeId, 'zombie', 2));
    await applyNodeEvent(database.db, created(nodeId, 'zombie', 1));
    expect(await titleOf(nodeId)).toBeNull();
    expect((await search.documents.count({})).count).toBe(before);
    expect(await findDocumentRow(database.db, tenant, nodeId)).toMatchObject({ version: 3, title: '' });
  });

  it('a delete that arrives before the create still wins', async () => {
    const nodeId = newId('node');
    await applyNodeEvent(database.db, deleted(nodeId, 2));
    await applyNodeEvent(database.db, created(nodeId, 'early', 1));
    expect(await titleOf(nodeId)).toBeNull();
  });

  it('any delivery order of a history ends equal to the last write', async () => {
    // created v1, updated v2..v4, then (for odd n) deleted v5: every permutation of a short history.
    const histories = [false, true].map((gone) => (nodeId: string) => [
      created(nodeId, 't1', 1),
      updated(nodeId, 't2', 2),
      updated(nodeId, 't3', 3),
      ...(gone ? [deleted(nodeId, 4)] : [updated(nodeId, 't4', 4)]),
    ]);
    const permutations = <T>(xs: T[]): T[][] =>
      xs.length <= 1
        ? [xs]
        : xs.flatMap((x, i) => permutations([...xs.slice(0, i), ...xs.slice(i + 1)]).map((p) => [x, ...p]));
    for (const [gone, history] of histories.entries()) {
      for (const order of permutations([0, 1, 2, 3])) {
        const nodeId = newId('node');
        const events = history(nodeId);
        for (const i of order) await applyNodeEvent(database.db, events[i]!);
        expect(await titleOf(nodeId)).toBe(gone ? null : 't4');
      }
    }
  });

  it('an update after a delete is applied again when its version is newer (no stale tombstone)', async () => {
    const nodeId = newId('node');
    await applyNodeEvent(database.db, deleted(nodeId, 2));
    await applyNodeEvent(database.db, updated(nodeId, 'later', 3));
    expect(await titleOf(nodeId)).toBe('later');
    expect(await findDocumentRow(database.db, tenant, nodeId)).toMatchObject({ deletedAt: null, version: 3 });
  });
});
