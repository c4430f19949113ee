import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '@kg/db';
import { createLogger } from '@kg/logger';
import type { graphApi, Identity } from '@kg/contracts';
import type { ServiceHandle } from '@kg/trpc';
import { paraMigrations } from '../module';
import { findItem } from '../store/items';
import { retryPendingAssociations } from './associations';
import type { ParaContext } from './context';
import { createItem } from './items';
import { archiveItem, unarchiveItem } from './lifecycle';

const who: Identity = {
  tenantId: 'tnt_01jd8x6q1bf5r3v2m9w7k4t0za',
  subject: 'u',
  credential: { kind: 'jwt', id: 'j' },
};

/** A graph peer that records the commands it confirms and can be made to fail (a crash before it answers). */
function fakeGraph() {
  const calls: string[] = [];
  const versions: number[] = [];
  let failing = false;
  let gate: Promise<void> | null = null;
  type Ref = { para_item_id: string; status_version: number };
  const receive = async (op: string, ref: Ref) => {
    const held = gate;
    if (held && op === 'archive') await held;
    if (failing) throw new Error('graph unreachable');
    calls.push(`${op} ${ref.para_item_id}`);
    versions.push(ref.status_version);
  };
  const handle = {
    service: 'graph',
    as: () => ({
      assignments: {
        archiveItem: async (ref: Ref) => (await receive('archive', ref), { archived: 1 }),
        restoreItem: async (ref: Ref) => (await receive('restore', ref), { restored: 1 }),
      },
    }),
  } as unknown as ServiceHandle<typeof graphApi>;
  /** Holds archive commands in flight until the returned function is called. */
  const holdArchives = () => {
    let release!: () => void;
    gate = new Promise((r) => (release = r));
    return () => {
      gate = null;
      release();
    };
  };
  return { handle, calls, versions, holdArchives, fail: (on: boolean) => (failing = on) };
}

let database: Database;
beforeAll(async () => {
  database = await openDatabase({ dataDir: null });
  await database.migrate(paraMigrations);
}, 60_000);
afterAll(() => database.close());

function context(graph: ServiceHandle<typeof graphApi>, now = () => new Date()): ParaContext {
  const scorer = { method: 'none', count: async () => 0, page: async () => ({ nodes: [], next: null }) };
  return { db: database.db, graph, scorer, logger: createLogger('test', 'silent'), now, afterCommit: () => {} };
}

describe('archive propagation to the graph service', () => {
  it('tells graph once per change; repeating an archive or unarchive sends nothing new', async () => {
    const graph = fakeGraph();
    const ctx = context(graph.handle);
    const item = await createItem(ctx, who.tenantId, { category: 'projects', label: 'Once' });
    await archiveItem(ctx, who, item.id);
    await archiveItem(ctx, who, item.id);
    await unarchiveItem(ctx, who, item.id);
    await unarchiveItem(ctx, who, item.id);
    expect(graph.calls).toEqual([`archive ${item.id}`, `restore ${item.id}`]);
    expect((await findItem(database.db, who.tenantId, item.id))?.associationsPending).toBe(false);
  });

  it('a failure between the two steps leaves the item archived and pending; the sweeper completes it', async () => {
    const graph = fakeGraph();
    const item = await createItem(context(graph.handle), who.tenantId, { category: 'areas', label: 'Crash' });

    // Step 1 commits, then the process "dies" before graph confirms (the call fails).
    graph.fail(true);
    const failed = await archiveItem(context(graph.handle), who, item.id).catch((e: unknown) => e);
    expect(failed).toMatchObject({ kind: 'unavailable' });
    const half = await findItem(database.db, who.tenantId, item.id);
    expect(half).toMatchObject({ status: 'archived', associationsPending: true });
    expect(graph.calls).toEqual([]);

    // A fresh process (new context), graph reachable again: its sweeper sends the command.
    graph.fail(false);
    const later = () => new Date(Date.now() + 10_000);
    expect(await retryPendingAssociations(context(graph.handle, later))).toBeGreaterThanOrEqual(1);
    expect(graph.calls).toEqual([`archive ${item.id}`]);
    expect((await findItem(database.db, who.tenantId, item.id))?.associationsPending).toBe(false);
    expect(await retryPendingAssociations(context(graph.handle, later))).toBe(0);
    expect(graph.calls).toEqual([`archive ${item.id}`]);
  });

  it('a repeated archive request completes a half-done one at once', async () => {
    const graph = fakeGraph();
    const ctx = context(graph.handle);
    const item = await createItem(ctx, who.tenantId, { category: 'resources', label: 'Retry' });
    graph.fail(true);
    await expect(archiveItem(ctx, who, item.id)).rejects.toMatchObject({ kind: 'unavailable' });
    graph.fail(false);
    expect(await archiveItem(ctx, who, item.id)).toMatchObject({ status: 'archived' });
    expect(graph.calls).toEqual([`archive ${item.id}`]);
    expect((await findItem(database.db, who.tenantId, item.id))?.associationsPending).toBe(false);
  });

  it('the sweeper leaves items changed within the grace period to their own request', async () => {
    const graph = fakeGraph();
    const ctx = context(graph.handle);
    const item = await createItem(ctx, who.tenantId, { category: 'resources', label: 'Young' });
    graph.fail(true);
    await archiveItem(ctx, who, item.id).catch(() => undefined);
    graph.fail(false);
    await retryPendingAssociations(ctx, 60_000);
    expect(graph.calls).not.toContain(`archive ${item.id}`);
  });

  it('every command carries a newer status_version; a late confirmation leaves the newer pending flag alone', async () => {
    const graph = fakeGraph();
    const ctx = context(graph.handle);
    const item = await createItem(ctx, who.tenantId, { category: 'projects', label: 'Raced' });
    await archiveItem(ctx, who, item.id);
    await unarchiveItem(ctx, who, item.id);
    expect(graph.versions).toEqual([1, 2]);

    // An archive whose command is still in flight while an unarchive commits and is confirmed.
    const release = graph.holdArchives();
    const archiving = archiveItem(ctx, who, item.id);
    await new Promise((r) => setTimeout(r, 50));
    graph.fail(true);
    await expect(unarchiveItem(ctx, who, item.id)).rejects.toMatchObject({ kind: 'unavailable' });
    graph.fail(false);
    release();
    await archiving;
    // The archive (v3) arrived last; v4 (unarchive) is still pending, so the sweeper sends it.
    expect(graph.versions).toEqual([1, 2, 3]);
    expect(await findItem(database.db, who.tenantId, item.id)).toMatchObject({
      status: 'active',
      statusVersion: 4,
      associationsPending: true,
    });
    const later = () => new Date(Date.now() + 10_000);
    await retryPendingAssociations(context(graph.handle, later));
    expect(graph.calls.at(-1)).toBe(`restore ${item.id}`);
    expect(graph.versions.at(-1)).toBe(4);
    expect((await findItem(database.db, who.tenantId, item.id))?.associationsPending).toBe(false);
  });
});
