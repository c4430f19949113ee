import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { graphHarness, HARNESS_TIMEOUT, identity, type GraphHarness } from '../testing';
import { archiveItemAssignments, restoreItemAssignments } from './assignments';
import type { GraphContext } from './context';
import { toNode } from './nodes';
import { findNode } from '../store/nodes';
import { assignmentsOf } from '../store/assignments';
import { nodeParaItems } from '../store/schema';

const P = 'para_01jd8x6q1bf5r3v2m9w7k4t0za';
const A = 'para_01jd8x6q1bf5r3v2m9w7k4t0zb';
let h: GraphHarness;
let ctx: GraphContext;
beforeAll(async () => {
  h = await graphHarness({ para: new Set([P, A]) });
  ctx = { db: h.database.db, para: null as never, afterCommit: () => {}, now: () => new Date() };
}, HARNESS_TIMEOUT);
afterAll(() => h.database.close());

describe('archiving and restoring an item’s associations', () => {
  it('moves exactly the item’s links, keeps them on the node, and is idempotent both ways', async () => {
    const t = identity(51);
    const api = h.as(t);
    const only = await api.nodes.create({ title: 'only P', para_item_ids: [P] });
    const both = await api.nodes.create({ title: 'P and A', para_item_ids: [P, A] });
    const removed = await api.nodes.create({ title: 'P, removed later', para_item_ids: [P] });

    expect(await archiveItemAssignments(ctx, t.tenantId, P, 1)).toBe(3);
    expect(await archiveItemAssignments(ctx, t.tenantId, P, 1)).toBe(0);
    expect((await api.nodes.list({ para_item_id: P })).total).toBe(0);
    expect((await api.nodes.list({ orphan: true })).data.map((n) => n.id).sort()).toEqual([only.id, removed.id].sort());
    const kept = await api.nodes.get({ id: both.id });
    expect(kept.para_item_ids).toEqual([P, A]);
    expect(kept.para_assignments.map((a) => [a.para_item_id, a.state])).toEqual([
      [P, 'archived'],
      [A, 'active'],
    ]);
    // Another tenant's links to the same id are untouched.
    const other = await h.as(identity(52)).nodes.create({ title: 'theirs', para_item_ids: [P] });
    expect((await h.as(identity(52)).nodes.get({ id: other.id })).para_assignments[0]!.state).toBe('active');

    await api.nodes.update({ id: removed.id, patch: { para_item_ids: [] } });
    expect(await restoreItemAssignments(ctx, t.tenantId, P, 2)).toBe(2);
    expect(await restoreItemAssignments(ctx, t.tenantId, P, 2)).toBe(0);
    expect((await api.nodes.list({ para_item_id: P })).data.map((n) => n.id).sort()).toEqual([only.id, both.id].sort());
    expect((await api.nodes.get({ id: removed.id })).para_item_ids).toEqual([]);
  });

  it('emits node.updated naming para_item_ids for every node it moves', async () => {
    const t = identity(53);
    const n = await h.as(t).nodes.create({ title: 'evented', para_item_ids: [P] });
    await archiveItemAssignments(ctx, t.tenantId, P, 1);
    const events = (await h.outbox(t)).map((r) => r.payload as { type: string; data: Record<string, unknown> });
    const last = events.at(-1)!;
    expect(last.type).toBe('node.updated');
    expect(last.data).toMatchObject({ changed: ['para_item_ids'], node: { id: n.id, para_item_ids: [] } });
  });

  it('applies only a newer status_version: an archive that arrives after a later restore changes nothing', async () => {
    const t = identity(54);
    const api = h.as(t);
    const n = await api.nodes.create({ title: 'raced', para_item_ids: [P, A] });
    const state = async () => (await api.nodes.get({ id: n.id })).para_assignments.map((a) => a.state);

    // archive (v1) and unarchive (v2) sent at the same moment; v2 arrives first.
    expect(await restoreItemAssignments(ctx, t.tenantId, P, 2)).toBe(0);
    expect(await archiveItemAssignments(ctx, t.tenantId, P, 1)).toBe(0);
    expect(await state()).toEqual(['active', 'active']);
    expect((await api.nodes.list({ para_item_id: P })).data.map((x) => x.id)).toEqual([n.id]);

    // The next round (archive v3, unarchive v4) in order, then v3 replayed (a sweeper retry): active.
    expect(await archiveItemAssignments(ctx, t.tenantId, P, 3)).toBe(1);
    expect(await state()).toEqual(['archived', 'active']);
    expect(await restoreItemAssignments(ctx, t.tenantId, P, 4)).toBe(1);
    expect(await archiveItemAssignments(ctx, t.tenantId, P, 3)).toBe(0);
    expect(await state()).toEqual(['active', 'active']);

    // Versions are per item and per tenant: A's and another tenant's P start from scratch.
    expect(await archiveItemAssignments(ctx, t.tenantId, A, 1)).toBe(1);
    const other = await h.as(identity(55)).nodes.create({ title: 'theirs', para_item_ids: [P] });
    expect(await archiveItemAssignments(ctx, identity(55).tenantId, P, 1)).toBe(1);
    expect((await h.as(identity(55)).nodes.get({ id: other.id })).para_assignments[0]!.state).toBe('archived');
    expect(await state()).toEqual(['active', 'archived']);
  });

  it('a point read (one statement) answers what the node and its assignments read apart do', async () => {
    const t = identity(56);
    const api = h.as(t);
    const n = await api.nodes.create({ title: 'read whole', para_item_ids: [P, A] });
    await archiveItemAssignments(ctx, t.tenantId, A, 1);
    // An automatic assignment with a score no float rounding may change.
    await h.database.db.insert(nodeParaItems).values({
      tenantId: t.tenantId,
      nodeId: n.id,
      paraItemId: 'para_01jd8x6q1bf5r3v2m9w7k4t0zc',
      position: 2,
      assignedBy: 'system:reclassify',
      score: 0.1234567890123,
    });
    const apart = async (id: string) => {
      const node = (await findNode(h.database.db, t.tenantId, id))!;
      return toNode(node, (await assignmentsOf(h.database.db, t.tenantId, [id])).get(id)!);
    };
    const whole = await api.nodes.get({ id: n.id });
    expect(whole).toEqual(await apart(n.id));
    expect(whole.para_assignments.map((a) => [a.para_item_id, a.state, a.score])).toEqual([
      [P, 'active', null],
      [A, 'archived', null],
      ['para_01jd8x6q1bf5r3v2m9w7k4t0zc', 'active', 0.1234567890123],
    ]);
    const bare = await api.nodes.create({ title: 'no items' });
    expect(await api.nodes.get({ id: bare.id })).toEqual(await apart(bare.id));
  });
});
