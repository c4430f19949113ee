import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { graphHarness, HARNESS_TIMEOUT, identity, type GraphHarness } from '../testing';
import { autoAssign, orphanCount, orphanPage, RECLASSIFY } from './reclassify';
import type { GraphContext } from './context';

const P1 = 'para_01jd8x6q1bf5r3v2m9w7k4t0za';
const P2 = 'para_01jd8x6q1bf5r3v2m9w7k4t0zb';
let h: GraphHarness;
let ctx: GraphContext;
beforeAll(async () => {
  h = await graphHarness({ para: new Set([P1, P2]) });
  ctx = { db: h.database.db, para: null as never, afterCommit: () => {}, now: () => new Date() };
}, HARNESS_TIMEOUT);
afterAll(() => h.database.close());

describe('reclassification in the graph service', () => {
  it('scores candidates by keywords, leaves unrelated and assigned nodes out, and assigns once', async () => {
    const t = identity(41);
    const api = h.as(t);
    const match = await api.nodes.create({
      title: 'Sourdough starter feeding',
      content: 'Feed the sourdough starter with flour and water.',
    });
    const weak = await api.nodes.create({ title: 'Water the plants', content: 'Every other day.' });
    const unrelated = await api.nodes.create({ title: 'Quarterly tax return', content: 'Due in April.' });
    const assigned = await api.nodes.create({ title: 'Sourdough recipe', para_item_ids: [P2] });
    const items = [{ id: P1, text: 'Sourdough baking. Bread, starter, flour' }];

    expect(await orphanCount(ctx, t.tenantId)).toBe(3);
    const page = await orphanPage(ctx, t.tenantId, { after: null, limit: 10, items });
    const byId = new Map(page.nodes.map((n) => [n.id, n]));
    expect([...byId.keys()].sort()).toEqual([match.id, weak.id, unrelated.id].sort());
    expect(byId.get(unrelated.id)).toEqual({ id: unrelated.id, para_item_id: null, score: 0 });
    expect(byId.get(match.id)!.para_item_id).toBe(P1);
    expect(byId.get(match.id)!.score).toBeGreaterThan(byId.get(weak.id)!.score);
    expect(page.next).toBeNull();
    // Paging by id: two pages of one and two.
    const first = await orphanPage(ctx, t.tenantId, { after: null, limit: 1, items });
    const rest = await orphanPage(ctx, t.tenantId, { after: first.next, limit: 5, items });
    expect([...first.nodes, ...rest.nodes].map((n) => n.id)).toEqual(page.nodes.map((n) => n.id));

    const rows = [
      { node_id: match.id, para_item_id: P1, score: 0.5 },
      { node_id: assigned.id, para_item_id: P1, score: 0.9 },
    ];
    expect(await autoAssign(ctx, t.tenantId, rows)).toBe(1);
    expect(await autoAssign(ctx, t.tenantId, rows)).toBe(0);
    const node = await api.nodes.get({ id: match.id });
    expect(node.para_item_ids).toEqual([P1]);
    expect(node.para_assignments).toEqual([
      { para_item_id: P1, state: 'active', assigned_by: RECLASSIFY, score: 0.5, assigned_at: expect.any(String) },
    ]);
    expect((await api.nodes.get({ id: assigned.id })).para_item_ids).toEqual([P2]);
    expect(await orphanCount(ctx, t.tenantId)).toBe(2);
    expect((await api.nodes.list({ para_item_id: P1 })).data.map((n) => n.id)).toEqual([match.id]);
    // Another tenant's nodes are never candidates.
    expect(await orphanCount(ctx, identity(42).tenantId)).toBe(0);
  });
});
