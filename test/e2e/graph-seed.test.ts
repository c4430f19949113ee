import { beforeAll, describe, expect, it } from 'vitest';
import { api, createNode, expectProblem, newTenant, type Session } from './support/client';
import { buildGraph, type SeedBody } from './support/graph';

// chain a-b-c-d-e and a star centred on c with leaves s1 (0.9), s3 (0.7), s2 (0.5)
const NAMES = ['a', 'b', 'c', 'd', 'e', 's1', 's2', 's3'];
const LINKS: Array<[string, string, number]> = [
  ['a', 'b', 1],
  ['b', 'c', 1],
  ['c', 'd', 1],
  ['d', 'e', 1],
  ['c', 's1', 0.9],
  ['c', 's2', 0.5],
  ['c', 's3', 0.7],
];

let s: Session;
let id: Record<string, string>;
let name: Record<string, string>;
beforeAll(async () => {
  s = await newTenant('seed');
  id = await buildGraph(s.bearer, NAMES, LINKS);
  name = Object.fromEntries(Object.entries(id).map(([k, v]) => [v, k]));
});

const seed = (query: string, auth = s.bearer) => api<SeedBody>('GET', `/graph/seed${query}`, { auth });
const depths = (b: SeedBody) => Object.fromEntries(b.nodes.map((n) => [name[n.id], n.depth]));
const names = (ids: string[]) => ids.map((x) => name[x]).sort();

describe('GET /graph/seed', () => {
  it('depth 1 (default): the seed and its neighbours, the frontier where more lies beyond', async () => {
    const res = await seed(`?seed=${id['a']}`);
    expect(res.status).toBe(200);
    expect(res.body.seed_id).toBe(id['a']);
    expect(depths(res.body)).toEqual({ a: 0, b: 1 });
    expect(names(res.body.frontier_ids)).toEqual(['b']);
    expect(res.body.edges).toEqual([expect.objectContaining({ link_type: 'related', weight: 1 })]);
    expect(res.body.meta).toEqual({ node_count: 2, edge_count: 1, depth: 1 });
    expect(res.body.nodes[0]).toMatchObject({
      title: 'a',
      para_category: null,
      para_item_id: null,
      connection_count: 1,
    });
  });

  it('depth 2 and 3 along the chain and across the star', async () => {
    const two = (await seed(`?seed=${id['a']}&depth=2`)).body;
    expect(depths(two)).toEqual({ a: 0, b: 1, c: 2 });
    expect(names(two.frontier_ids)).toEqual(['c']);
    const three = (await seed(`?seed=${id['a']}&depth=3`)).body;
    expect(depths(three)).toEqual({ a: 0, b: 1, c: 2, d: 3, s1: 3, s2: 3, s3: 3 });
    expect(names(three.frontier_ids)).toEqual(['d']);
    expect(three.meta).toEqual({ node_count: 7, edge_count: 6, depth: 3 });
  });

  it('defaults to the hub: the node with the most connections', async () => {
    const res = await seed('');
    expect(name[res.body.seed_id!]).toBe('c');
    expect(res.body.nodes.find((n) => n.id === id['c'])).toMatchObject({ depth: 0, connection_count: 5 });
    expect(depths(res.body)).toEqual({ c: 0, b: 1, d: 1, s1: 1, s2: 1, s3: 1 });
  });

  it('keeps the strongest links when max_nodes bites and reports the cut parent', async () => {
    const res = await seed(`?seed=${id['c']}&max_nodes=4`);
    expect(depths(res.body)).toEqual({ c: 0, b: 1, d: 1, s1: 1 });
    expect(res.body.frontier_ids).toContain(id['c']);
  });

  it('never seeds on, nor returns, dismissed nodes', async () => {
    const t = await newTenant('seed-dismissed');
    const ids = await buildGraph(
      t.bearer,
      ['hub', 'x', 'y'],
      [
        ['hub', 'x', 1],
        ['hub', 'y', 1],
      ],
    );
    await api('PATCH', `/nodes/${ids['hub']}`, { auth: t.bearer, body: { status: 'dismissed' } });
    expectProblem(await seed(`?seed=${ids['hub']}`, t.bearer), 404);
    const res = await seed('', t.bearer);
    expect(res.body.seed_id).not.toBe(ids['hub']);
    expect(res.body.nodes.map((n) => n.id)).not.toContain(ids['hub']);
  });

  it('answers an empty view for an empty tenant', async () => {
    const t = await newTenant('seed-empty');
    expect((await seed('', t.bearer)).body).toEqual({
      seed_id: null,
      nodes: [],
      edges: [],
      frontier_ids: [],
      meta: { node_count: 0, edge_count: 0, depth: 1 },
    });
  });

  it("answers 404 for unknown, malformed and other tenants' seeds", async () => {
    const other = await newTenant('seed-other');
    const foreign = await createNode(other.bearer, { title: 'foreign' });
    for (const q of [`?seed=${foreign.id}`, '?seed=node_01jd8x6q1bf5r3v2m9w7k4t0za', '?seed=nope'])
      expectProblem(await seed(q), 404);
  });

  it('rejects invalid parameters with 400', async () => {
    for (const q of ['?depth=0', '?depth=4', '?depth=x', '?depth=1.5', '?max_nodes=0', '?max_nodes=2001', '?other=1']) {
      expectProblem(await seed(q), 400);
    }
  });

  it('asked again, the same view follows every write in between (walks are kept per graph version)', async () => {
    const t = await newTenant('seed-again');
    const item = (await api('POST', '/para', { auth: t.bearer, body: { category: 'projects', label: 'Launch' } })).body;
    const [x, y] = [
      await createNode(t.bearer, { title: 'x', para_item_ids: [item.id] }),
      await createNode(t.bearer, { title: 'y' }),
    ];
    const view = async () => (await seed(`?seed=${x.id}&depth=2`, t.bearer)).body;
    const first = await view();
    expect(first.nodes.map((n) => n.id)).toEqual([x.id]);
    expect(await view()).toEqual(first);
    // A link, then a title: both change the graph's version.
    const links = { links: [{ target_id: y.id, type: 'related', weight: 0.5 }] };
    expect((await api('PATCH', `/nodes/${x.id}/links`, { auth: t.bearer, body: links })).status).toBe(200);
    const linked = await view();
    expect(linked.nodes.map((n) => n.id)).toEqual([x.id, y.id]);
    expect(linked.meta.edge_count).toBe(1);
    expect((await api('PATCH', `/nodes/${y.id}`, { auth: t.bearer, body: { title: 'y renamed' } })).status).toBe(200);
    expect((await view()).nodes.find((n) => n.id === y.id)?.title).toBe('y renamed');
    // Completing the project changes no graph row: the placement is still read on every view.
    expect((await view()).nodes[0]).toMatchObject({ para_category: 'projects', para_item_id: item.id });
    expect((await api('POST', `/para/${item.id}/complete`, { auth: t.bearer })).status).toBe(200);
    expect((await view()).nodes[0]).toMatchObject({ para_category: null, para_item_id: null });
  });
});
