import { beforeAll, describe, expect, it } from 'vitest';
import { Node, type ParaItem } from '@kg/contracts';
import { api, conforms, createNode, expectProblem, newTenant, type Session } from './support/client';

let s: Session;
let other: Session;
beforeAll(async () => {
  [s, other] = await Promise.all([newTenant('para-assign'), newTenant('para-assign-other')]);
});

const item = async (auth: string, category: string, label: string) => {
  const res = await api<ParaItem>('POST', '/para', { auth, body: { category, label } });
  expect(res.status).toBe(201);
  return res.body;
};
const node = async (auth: string, id: string) => conforms(Node, (await api('GET', `/nodes/${id}`, { auth })).body);
const ids = async (auth: string, query: string) =>
  ((await api<{ data: Array<{ id: string }> }>('GET', `/nodes?${query}&per_page=100`, { auth })).body.data ?? [])
    .map((n) => n.id)
    .sort();
const placement = async (auth: string, id: string) => {
  const view = await api<{ nodes: Array<{ id: string; para_category: string | null; para_item_id: string | null }> }>(
    'GET',
    `/graph/seed?seed=${id}&depth=1`,
    { auth },
  );
  const n = view.body.nodes.find((x) => x.id === id)!;
  return [n.para_category, n.para_item_id];
};

describe('node assignments and archive', () => {
  it('archive drops the item’s nodes out of its filter and orphans them; unarchive restores exactly what it archived', async () => {
    const t = await newTenant('para-archive');
    const p = await item(t.bearer, 'projects', 'Launch');
    const a = await item(t.bearer, 'areas', 'Health');
    const n1 = await createNode(t.bearer, { title: 'Only launch', para_item_ids: [p.id] });
    const n2 = await createNode(t.bearer, { title: 'Launch and health', para_item_ids: [p.id, a.id] });
    const n3 = await createNode(t.bearer, { title: 'Removed from launch later', para_item_ids: [p.id] });
    const orphan = await createNode(t.bearer, { title: 'Nowhere' });
    const health = (await api('GET', '/graph-health', { auth: t.bearer })).body;

    expect(await ids(t.bearer, `para_item_id=${p.id}`)).toEqual([n1.id, n2.id, n3.id].sort());
    expect(await ids(t.bearer, 'orphan=true')).toEqual([orphan.id]);
    expect(await placement(t.bearer, n1.id)).toEqual(['projects', p.id]);
    const before = await node(t.bearer, n1.id);
    expect(before.para_assignments).toEqual([
      { para_item_id: p.id, state: 'active', assigned_by: 'user', score: null, assigned_at: expect.any(String) },
    ]);

    for (let i = 0; i < 2; i++) {
      const res = await api<ParaItem>('POST', `/para/${p.id}/archive`, { auth: t.bearer });
      expect(res.status).toBe(200);
      expect(res.body.status).toBe('archived');
      expect(await ids(t.bearer, `para_item_id=${p.id}`)).toEqual([]);
      expect(await ids(t.bearer, 'orphan=true')).toEqual([n1.id, n3.id, orphan.id].sort());
      expect(await ids(t.bearer, `para_item_id=${a.id}`)).toEqual([n2.id]);
      expect(await placement(t.bearer, n1.id)).toEqual([null, null]);
      expect(await placement(t.bearer, n2.id)).toEqual(['areas', a.id]);
      expect((await api('GET', '/graph-health', { auth: t.bearer })).body).toEqual(health);
    }
    // The node keeps the link, marked archived.
    const kept = await node(t.bearer, n1.id);
    expect(kept.para_item_ids).toEqual([p.id]);
    expect(kept.para_assignments[0]).toMatchObject({ para_item_id: p.id, state: 'archived' });

    // In between, the person removes the archived link from n3 and keeps it on n1 (sent back as is).
    const removed = await api('PATCH', `/nodes/${n3.id}`, { auth: t.bearer, body: { para_item_ids: [] } });
    expect(removed.status).toBe(200);
    expect(removed.body).toMatchObject({ para_item_ids: [], para_assignments: [] });
    const resent = await api('PATCH', `/nodes/${n1.id}`, { auth: t.bearer, body: { para_item_ids: [p.id] } });
    expect(resent.status).toBe(200);
    expect(resent.body.para_assignments[0]).toMatchObject({ para_item_id: p.id, state: 'archived' });

    for (let i = 0; i < 2; i++) {
      expect((await api('POST', `/para/${p.id}/unarchive`, { auth: t.bearer })).body).toMatchObject({
        status: 'active',
      });
      expect(await ids(t.bearer, `para_item_id=${p.id}`)).toEqual([n1.id, n2.id].sort());
      expect(await ids(t.bearer, 'orphan=true')).toEqual([n3.id, orphan.id].sort());
      expect(await placement(t.bearer, n1.id)).toEqual(['projects', p.id]);
      expect(await placement(t.bearer, n2.id)).toEqual(['projects', p.id]);
    }
    expect((await node(t.bearer, n1.id)).para_assignments[0]).toMatchObject({ state: 'active', assigned_by: 'user' });
  });

  it('archive and unarchive sent at the same moment: the node links always end as the item’s final status', async () => {
    const t = await newTenant('para-archive-race');
    const p = await item(t.bearer, 'projects', 'Raced');
    const a = await item(t.bearer, 'areas', 'Steady');
    const n1 = await createNode(t.bearer, { title: 'Raced only', para_item_ids: [p.id] });
    const n2 = await createNode(t.bearer, { title: 'Raced and steady', para_item_ids: [p.id, a.id] });
    const states = async (id: string) => (await node(t.bearer, id)).para_assignments.map((x) => x.state);

    // Distributed mode (PARA calls graph over HTTP) reorders the graph commands: without the
    // status_version check this left the links archived under an active item.
    for (let round = 0; round < 12; round++) {
      // Archives and unarchives interleaved, all in flight at once (even rounds start with an archive).
      const ops = Array.from({ length: 6 }, (_, i) => ((i + round) % 2 === 0 ? 'archive' : 'unarchive'));
      const results = await Promise.all(
        ops.map((op) => api<ParaItem>('POST', `/para/${p.id}/${op}`, { auth: t.bearer })),
      );
      for (const res of results) expect(res.status).toBe(200);
      const final = (await api<ParaItem>('GET', `/para/${p.id}`, { auth: t.bearer })).body.status;
      const archived = final === 'archived';
      expect(await ids(t.bearer, `para_item_id=${p.id}`)).toEqual(archived ? [] : [n1.id, n2.id].sort());
      expect(await ids(t.bearer, 'orphan=true')).toEqual(archived ? [n1.id] : []);
      expect(await ids(t.bearer, `para_item_id=${a.id}`)).toEqual([n2.id]);
      expect(await states(n1.id)).toEqual([archived ? 'archived' : 'active']);
      expect(await states(n2.id)).toEqual([archived ? 'archived' : 'active', 'active']);
    }
  });

  it('PATCH para_item_ids is a full replacement, in the order given', async () => {
    const p = await item(s.bearer, 'projects', 'Order');
    const r = await item(s.bearer, 'resources', 'Order');
    const n = await createNode(s.bearer, { title: 'Ordered', para_item_ids: [p.id] });
    const res = await api('PATCH', `/nodes/${n.id}`, { auth: s.bearer, body: { para_item_ids: [r.id, p.id] } });
    expect(res.status).toBe(200);
    expect(res.body.para_item_ids).toEqual([r.id, p.id]);
    expect(await placement(s.bearer, n.id)).toEqual(['resources', r.id]);
    expect((await api('PATCH', `/nodes/${n.id}`, { auth: s.bearer, body: { title: 'Kept' } })).body).toMatchObject({
      para_item_ids: [r.id, p.id],
    });
    const cleared = await api('PATCH', `/nodes/${n.id}`, { auth: s.bearer, body: { para_item_ids: [] } });
    expect(cleared.body.para_item_ids).toEqual([]);
    expect(await ids(s.bearer, `para_item_id=${p.id}`)).not.toContain(n.id);
  });

  it('assigning an unknown, archived or other tenant’s item is 400 at its path, on create and patch', async () => {
    const archived = await item(s.bearer, 'areas', 'Gone');
    await api('POST', `/para/${archived.id}/archive`, { auth: s.bearer });
    const foreign = await item(other.bearer, 'areas', 'Theirs');
    const live = await item(s.bearer, 'areas', 'Live');
    const n = await createNode(s.bearer, { title: 'Target' });
    for (const [bad, message] of [
      ['para_01jd8x6q1bf5r3v2m9w7k4t0za', /no such/],
      [foreign.id, /no such/],
      [archived.id, /archived/],
    ] as const) {
      const created = expectProblem(
        await api('POST', '/nodes', { auth: s.bearer, body: { title: 'x', para_item_ids: [live.id, bad] } }),
        400,
      );
      expect(created.errors).toEqual([{ path: 'para_item_ids.1', message: expect.stringMatching(message) }]);
      const patched = expectProblem(
        await api('PATCH', `/nodes/${n.id}`, { auth: s.bearer, body: { para_item_ids: [live.id, bad] } }),
        400,
      );
      expect(patched.errors?.[0]?.path).toBe('para_item_ids.1');
    }
    expect((await node(s.bearer, n.id)).para_item_ids).toEqual([]);
    expect(await ids(other.bearer, `para_item_id=${foreign.id}`)).toEqual([]);
  });
});
