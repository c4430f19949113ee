import { beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { api, createNode, expectProblem, newTenant, type Session } from './support/client';
import { buildGraph, type NeighborsBody } from './support/graph';

let s: Session;
let id: Record<string, string>;
beforeAll(async () => {
  s = await newTenant('neighbors');
  const leaves = ['l1', 'l2', 'l3', 'l4', 'l5', 'l6', 'l7'];
  id = await buildGraph(
    s.bearer,
    ['hub', ...leaves],
    leaves.map((l, i) => ['hub', l, [0.3, 0.9, 0.3, 0.5, 1, 0.9, 0.3][i]!] as [string, string, number]),
  );
});

const page = (node: string, query: string, auth = s.bearer) =>
  api<NeighborsBody>('GET', `/graph/neighbors/${node}${query}`, { auth });

async function allPages(node: string, direction: string, limit: number, auth = s.bearer) {
  const pages: NeighborsBody[] = [];
  let cursor: string | null = null;
  do {
    const res = await page(
      node,
      `?direction=${direction}&limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      auth,
    );
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    pages.push(res.body);
    cursor = res.body.next_cursor;
  } while (cursor && pages.length < 100);
  return pages;
}

describe('GET /graph/neighbors/:id', () => {
  it('orders by weight desc then ids, marks nodes newly_added, and pages to the end', async () => {
    const pages = await allPages(id['hub']!, 'out', 3);
    expect(pages.map((p) => p.edges.length)).toEqual([3, 3, 1]);
    expect(pages.at(-1)!.next_cursor).toBeNull();
    const edges = pages.flatMap((p) => p.edges);
    const weights = edges.map((e) => e.weight);
    expect(weights).toEqual([...weights].sort((x, y) => y - x));
    for (let i = 1; i < edges.length; i++)
      if (edges[i]!.weight === edges[i - 1]!.weight) expect(edges[i]!.target > edges[i - 1]!.target).toBe(true);
    expect(edges.every((e) => e.source === id['hub'])).toBe(true);
    expect(pages[0]!.nodes.every((n) => n.newly_added === true && n.connection_count === 1)).toBe(true);
  });

  it('with direction=both, a node with 7 links answers limit=2 in 4 pages, each neighbour listed once per page', async () => {
    const pages = await allPages(id['hub']!, 'both', 2);
    expect(pages).toHaveLength(4);
    expect(pages.map((p) => p.edges.length)).toEqual([4, 4, 4, 2]);
    for (const p of pages) expect(new Set(p.nodes.map((n) => n.id)).size).toBe(p.nodes.length);
    const inEdges = pages.flatMap((p) => p.edges).filter((e) => e.target === id['hub']);
    expect(inEdges).toHaveLength(7);
  });

  it('defaults to both directions and a limit of 50', async () => {
    const res = await page(id['l1']!, '');
    expect(res.body).toMatchObject({ node_id: id['l1'], next_cursor: null });
    expect(res.body.edges).toHaveLength(2);
  });

  it('rejects bad parameters and cursors with 400', async () => {
    for (const q of ['?direction=up', '?limit=0', '?limit=201', '?limit=x', '?cursor=garbage', '?extra=1'])
      expectProblem(await page(id['hub']!, q), 400);
    const first = await page(id['hub']!, '?direction=out&limit=2');
    const cursor = encodeURIComponent(first.body.next_cursor!);
    expectProblem(await page(id['hub']!, `?direction=in&limit=2&cursor=${cursor}`), 400);
    expectProblem(await page(id['l1']!, `?direction=out&limit=2&cursor=${cursor}`), 400);
    const other = await newTenant('neighbors-other');
    const foreignNode = await createNode(other.bearer, { title: 'x' });
    expectProblem(await page(foreignNode.id, `?direction=out&limit=2&cursor=${cursor}`, other.bearer), 400);
    expect((await page(id['hub']!, `?direction=out&limit=2&cursor=${cursor}`)).status).toBe(200);
  });

  it("answers 404 for unknown, other tenants' and dismissed nodes", async () => {
    const other = await newTenant('neighbors-404');
    expectProblem(await page(id['hub']!, '', other.bearer), 404);
    expectProblem(await page('node_01jd8x6q1bf5r3v2m9w7k4t0za', ''), 404);
    const gone = await createNode(s.bearer, { title: 'gone' });
    await api('PATCH', `/nodes/${gone.id}`, { auth: s.bearer, body: { status: 'dismissed' } });
    expectProblem(await page(gone.id, ''), 404);
  });

  it('pages every neighbour exactly once in all three directions (property, random graphs)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 9 }),
        fc.array(fc.constantFrom(0.25, 0.5, 0.75, 1), { minLength: 9, maxLength: 9 }),
        fc.integer({ min: 1, max: 4 }),
        async (degree, weights, limit) => {
          const t = await newTenant('pages');
          const leaves = Array.from({ length: degree }, (_, i) => `v${i}`);
          const ids = await buildGraph(
            t.bearer,
            ['c', ...leaves],
            leaves.map((l, i) => ['c', l, weights[i]!] as [string, string, number]),
          );
          for (const direction of ['out', 'in', 'both']) {
            const pages = await allPages(ids['c']!, direction, limit, t.bearer);
            const seen = pages.flatMap((p) => p.edges.map((e) => `${e.source}>${e.target}`));
            expect(new Set(seen).size).toBe(seen.length);
            expect(seen.length).toBe(direction === 'both' ? 2 * degree : degree);
          }
        },
      ),
      { numRuns: 8 },
    );
  }, 120_000);
});
