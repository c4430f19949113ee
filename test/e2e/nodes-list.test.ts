import { beforeAll, describe, expect, it } from 'vitest';
import { type Node, NodePage } from '@kg/contracts';
import { api, conforms, createNode, expectProblem, newTenant, type Session } from './support/client';

let s: Session;
const ids: Record<string, string> = {};
let created: string[] = []; // in the documented list order reversed: created_at asc, then id asc
beforeAll(async () => {
  s = await newTenant('list');
  const made: Array<{ id: string; created_at: string }> = [];
  const make = async (key: string, body: Record<string, unknown>) => {
    const n = await createNode(s.bearer, body);
    ids[key] = n.id;
    made.push(n);
  };
  await make('body', { title: 'Gardening notes', content: 'Compost feeds photosynthesis in the leaves.' });
  await make('title', { title: 'Photosynthesis', content: 'Light into sugar.' });
  await make('summary', { title: 'Plant biology', summary: 'How photosynthesis works' });
  for (let i = 0; i < 22; i++)
    await make(`f${i}`, { title: `Filler ${i}`, content: 'nothing relevant', tags: ['filler'] });
  await api('PATCH', `/nodes/${ids['body']}`, { auth: s.bearer, body: { status: 'validated' } });
  await api('PATCH', `/nodes/${ids['f3']}`, { auth: s.bearer, body: { status: 'dismissed' } });
  created = made.sort((x, y) => x.created_at.localeCompare(y.created_at) || (x.id < y.id ? -1 : 1)).map((n) => n.id);
});

type Page = { data: Array<Node>; total: number; page: number; per_page: number };
const list = (query: string) => api<Page>('GET', `/nodes${query}`, { auth: s.bearer });
const idsOf = (p: Page) => p.data.map((n) => n.id);

describe('GET /nodes', () => {
  it('pages newest first with defaults page 1 and per_page 20', async () => {
    const first = await list('');
    expect(first.status).toBe(200);
    const page = conforms(NodePage, first.body);
    expect(Object.keys(first.body).sort()).toEqual(['data', 'page', 'per_page', 'total']);
    expect(page).toMatchObject({ total: 25, page: 1, per_page: 20 });
    const newestFirst = [...created].reverse();
    expect(idsOf(page)).toEqual(newestFirst.slice(0, 20));
    const second = await list('?page=2');
    expect(second.body).toMatchObject({ total: 25, page: 2, per_page: 20 });
    expect(idsOf(second.body)).toEqual(newestFirst.slice(20));
    expect((await list('?page=9')).body).toEqual({ data: [], total: 25, page: 9, per_page: 20 });
    expect(idsOf((await list('?per_page=100')).body)).toEqual(newestFirst);
  });

  it('serves every node exactly once across pages of any size', async () => {
    for (const perPage of [1, 7, 25]) {
      const seen: string[] = [];
      for (let p = 1; p <= Math.ceil(25 / perPage); p++) {
        const res = await list(`?per_page=${perPage}&page=${p}`);
        expect(res.body).toMatchObject({ total: 25, page: p, per_page: perPage });
        seen.push(...idsOf(res.body));
      }
      expect(seen).toEqual([...created].reverse());
    }
  });

  it('returns full nodes in the list', async () => {
    const res = await list('?per_page=100');
    const node = res.body.data.find((n) => n.id === ids['body'])!;
    expect(node).toMatchObject({
      title: 'Gardening notes',
      body_markdown: 'Compost feeds photosynthesis in the leaves.',
      status: 'validated',
      tags: [],
    });
    expect((await api('GET', `/nodes/${ids['body']}`, { auth: s.bearer })).body).toEqual(node);
  });

  it('filters by status, orphan and PARA item, with totals', async () => {
    expect((await list('?status=validated')).body).toMatchObject({ total: 1, data: [{ id: ids['body'] }] });
    expect((await list('?status=dismissed')).body).toMatchObject({ total: 1, data: [{ id: ids['f3'] }] });
    expect((await list('?status=raw')).body.total).toBe(23);
    expect((await list('?orphan=true')).body.total).toBe(25);
    expect((await list('?orphan=false')).body).toEqual({ data: [], total: 0, page: 1, per_page: 20 });
    expect((await list('?para_item_id=para_01jd8x6q1bf5r3v2m9w7k4t0za')).body).toMatchObject({ data: [], total: 0 });
    expect((await list('?status=raw&orphan=true&per_page=5&page=5')).body).toMatchObject({ total: 23, page: 5 });
    expect((await list('?status=raw&orphan=true&per_page=5&page=5')).body.data).toHaveLength(3);
  });

  it('ranks keyword matches in the title above summary and body matches', async () => {
    const res = await list('?query=photosynthesis&mode=keyword');
    expect(res.status).toBe(200);
    expect(idsOf(res.body)).toEqual([ids['title'], ids['summary'], ids['body']]);
    expect(res.body.total).toBe(3);
    expect(idsOf((await list('?query=PHOTOSYNTHESIS&mode=keyword')).body)).toEqual(idsOf(res.body));
    expect((await list('?query=photosynthesis&mode=keyword&status=validated')).body).toMatchObject({
      total: 1,
      data: [{ id: ids['body'] }],
    });
    expect((await list('?query=photosynthesis&mode=keyword&per_page=1&page=2')).body).toMatchObject({
      total: 3,
      data: [{ id: ids['summary'] }],
    });
    expect((await list('?query=xylophone&mode=keyword')).body).toEqual({ data: [], total: 0, page: 1, per_page: 20 });
    expect((await list(`?query=${'a'.repeat(500)}`)).status).toBe(200);
    // Search syntax characters are text, never query operators or SQL.
    for (const q of ["a & b | !c ( ' :*", '"unterminated', "photosynthesis'; drop table nodes; --", '<->'])
      expect((await list(`?query=${encodeURIComponent(q)}`)).status, q).toBe(200);
    expect((await list('')).body.total).toBe(25);
  });

  it('rejects every out-of-range, malformed or unknown parameter with 400, never clamping', async () => {
    const cases: Array<[string, string]> = [
      ['?per_page=101', 'query.per_page'],
      ['?per_page=0', 'query.per_page'],
      ['?per_page=1.5', 'query.per_page'],
      ['?page=0', 'query.page'],
      ['?page=-1', 'query.page'],
      ['?page=abc', 'query.page'],
      [`?query=${'a'.repeat(501)}`, 'query.query'],
      ['?status=archived', 'query.status'],
      ['?orphan=yes', 'query.orphan'],
      ['?orphan=1', 'query.orphan'],
      ['?mode=fuzzy', 'query.mode'],
      ['?sort=title', 'query'],
    ];
    for (const [q, path] of cases) {
      const p = expectProblem(await list(q), 400);
      expect(p.errors?.[0]?.path, q).toMatch(new RegExp(`^${path.replace('.', '\\.')}`));
    }
  });
});
