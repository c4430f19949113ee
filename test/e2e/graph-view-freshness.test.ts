import { beforeAll, describe, expect, it } from 'vitest';
import { api, createNode, newTenant, type Session } from './support/client';
import { buildGraph, type NeighborsBody, type SeedBody } from './support/graph';

/**
 * The gateway keeps finished graph views and serves a view asked again from memory
 * (docs/API.md, "Graph views"): every write that changes what a view shows must be seen by
 * the very next view, in both modes. Each step asks the view three times first (a view is
 * kept at its second ask), so the entry is kept and served before the write.
 */
type Placed = { id: string; title: string; para_category: string | null; para_item_id: string | null };
type Neighbours = Omit<NeighborsBody, 'nodes'> & { nodes: Array<NeighborsBody['nodes'][number] & Placed> };
type Seed = Omit<SeedBody, 'nodes'> & {
  nodes: Array<Omit<SeedBody['nodes'][number], 'para_category' | 'para_item_id'> & Placed>;
};

let s: Session;
let id: Record<string, string>;
beforeAll(async () => {
  s = await newTenant('view-freshness');
  id = await buildGraph(
    s.bearer,
    ['hub', 'a', 'b'],
    [
      ['hub', 'a', 0.9],
      ['hub', 'b', 0.5],
    ],
  );
});

async function twice<T>(path: string): Promise<T> {
  const first = await api<T>('GET', path, { auth: s.bearer });
  expect(first.status, JSON.stringify(first.body)).toBe(200);
  const second = await api<T>('GET', path, { auth: s.bearer });
  const third = await api<T>('GET', path, { auth: s.bearer }); // kept at the second ask: served from memory
  for (const res of [second, third]) {
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(res.body).toEqual(first.body);
  }
  return third.body;
}

const neighbours = () => twice<Neighbours>(`/graph/neighbors/${id['hub']}?limit=50`);
const seed = () => twice<Seed>(`/graph/seed?seed=${id['hub']}&depth=2`);
const titles = (body: { nodes: Placed[] }) => body.nodes.map((n) => n.title).sort();
const placement = (body: { nodes: Placed[] }, node: string) => {
  const n = body.nodes.find((x) => x.id === node)!;
  return { para_category: n.para_category, para_item_id: n.para_item_id };
};

describe('graph views asked again after a write', () => {
  it('show a new link, a renamed node and a deleted node at once', async () => {
    expect(titles(await neighbours())).toEqual(['a', 'b']);
    expect(titles(await seed())).toEqual(['a', 'b', 'hub']);

    const c = await createNode(s.bearer, { title: 'c' });
    const linked = await api('PATCH', `/nodes/${id['hub']}/links`, {
      auth: s.bearer,
      body: {
        links: [
          { target_id: id['a'], type: 'related', weight: 0.9 },
          { target_id: id['b'], type: 'related', weight: 0.5 },
          { target_id: c.id, type: 'related', weight: 0.7 },
        ],
      },
    });
    expect(linked.status, JSON.stringify(linked.body)).toBe(200);
    expect(titles(await neighbours())).toEqual(['a', 'b', 'c']);
    expect(titles(await seed())).toEqual(['a', 'b', 'c', 'hub']);

    const renamed = await api('PATCH', `/nodes/${id['a']}`, { auth: s.bearer, body: { title: 'a renamed' } });
    expect(renamed.status).toBe(200);
    expect(titles(await neighbours())).toEqual(['a renamed', 'b', 'c']);
    expect(titles(await seed())).toEqual(['a renamed', 'b', 'c', 'hub']);

    expect((await api('DELETE', `/nodes/${c.id}`, { auth: s.bearer })).status).toBe(204);
    expect(titles(await neighbours())).toEqual(['a renamed', 'b']);
    expect(titles(await seed())).toEqual(['a renamed', 'b', 'hub']);
  });

  it('show a PARA placement as it is assigned, completed, archived and restored', async () => {
    const project = await api<{ id: string }>('POST', '/para', {
      auth: s.bearer,
      body: { category: 'projects', label: 'Fresh views' },
    });
    expect(project.status).toBe(201);
    const p = project.body.id;
    const none = { para_category: null, para_item_id: null };
    const placed = { para_category: 'projects', para_item_id: p };
    expect(placement(await neighbours(), id['b']!)).toEqual(none);

    expect((await api('PATCH', `/nodes/${id['b']}`, { auth: s.bearer, body: { para_item_ids: [p] } })).status).toBe(
      200,
    );
    expect(placement(await neighbours(), id['b']!)).toEqual(placed);
    expect(placement(await seed(), id['b']!)).toEqual(placed);

    expect((await api('POST', `/para/${p}/complete`, { auth: s.bearer })).status).toBe(200);
    expect(placement(await neighbours(), id['b']!)).toEqual(none);
    expect((await api('POST', `/para/${p}/undo-complete`, { auth: s.bearer })).status).toBe(200);
    expect(placement(await neighbours(), id['b']!)).toEqual(placed);

    expect((await api('POST', `/para/${p}/archive`, { auth: s.bearer })).status).toBe(200);
    expect(placement(await neighbours(), id['b']!)).toEqual(none);
    expect(placement(await seed(), id['b']!)).toEqual(none);
    expect((await api('POST', `/para/${p}/unarchive`, { auth: s.bearer })).status).toBe(200);
    expect(placement(await neighbours(), id['b']!)).toEqual(placed);
  });

  it('are never shared between tenants', async () => {
    const other = await newTenant('view-freshness-other');
    const path = `/graph/neighbors/${id['hub']}?limit=50`;
    expect((await api('GET', path, { auth: s.bearer })).status).toBe(200);
    expect((await api('GET', path, { auth: other.bearer })).status).toBe(404);
  });
});
