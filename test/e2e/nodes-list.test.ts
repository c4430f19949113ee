import { beforeAll, describe, expect, it } from 'vitest';
import { api, createNode, expectProblem, newTenant, type Session } from './support/client';

let s: Session;
const ids: Record<string, string> = {};
beforeAll(async () => {
  s = await newTenant('list');
  ids['body'] = (
    await createNode(s.bearer, { title: 'Gardening notes', content: 'Compost feeds photosynthesis in leaves.' })
  ).id;
  ids['title'] = (await createNode(s.bearer, { title: 'Photosynthesis', content: 'Light into sugar.' })).id;
  for (let i = 0; i < 23; i++) await createNode(s.bearer, { title: `Filler ${i}`, content: 'nothing relevant' });
  await api('PATCH', `/nodes/${ids['body']}`, { auth: s.bearer, body: { status: 'validated' } });
});

type Page = { data: Array<{ id: string; status: string }>; total: number; page: number; per_page: number };
const list = (query: string) => api<Page>('GET', `/nodes${query}`, { auth: s.bearer });

describe('GET /nodes', () => {
  it('pages newest first with defaults page 1 and per_page 20', async () => {
    const first = await list('');
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ total: 25, page: 1, per_page: 20 });
    expect(first.body.data).toHaveLength(20);
    const second = await list('?page=2');
    expect(second.body.data).toHaveLength(5);
    const all = [...first.body.data, ...second.body.data].map((n) => n.id);
    expect(new Set(all).size).toBe(25);
    expect(all.at(-1)).toBe(ids['body']);
    expect((await list('?page=9')).body).toMatchObject({ data: [], total: 25, page: 9 });
    expect((await list('?per_page=100')).body.data).toHaveLength(25);
  });

  it('filters by status, orphan and PARA item', async () => {
    expect((await list('?status=validated')).body.data.map((n) => n.id)).toEqual([ids['body']]);
    expect((await list('?orphan=true')).body.total).toBe(25);
    expect((await list('?orphan=false')).body.total).toBe(0);
    expect((await list('?para_item_id=para_01jd8x6q1bf5r3v2m9w7k4t0za')).body).toMatchObject({ data: [], total: 0 });
  });

  it('ranks keyword matches in the title above body-only matches', async () => {
    const res = await list('?query=photosynthesis&mode=keyword');
    expect(res.body.data.map((n) => n.id)).toEqual([ids['title'], ids['body']]);
    expect(res.body.total).toBe(2);
    expect((await list('?query=photosynthesis')).body.data.map((n) => n.id)).toEqual([ids['title'], ids['body']]);
    expect((await list('?query=photosynthesis&status=validated')).body.total).toBe(1);
    expect((await list(`?query=${'a'.repeat(500)}`)).status).toBe(200);
  });

  it('answers 501 for semantic and hybrid search until they land', async () => {
    expectProblem(await list('?query=x&mode=semantic'), 501);
    expectProblem(await list('?query=x&mode=hybrid'), 501);
  });

  it('rejects every out-of-range or unknown parameter with 400', async () => {
    for (const q of [
      '?per_page=101',
      '?per_page=0',
      '?page=0',
      '?page=-1',
      '?page=abc',
      `?query=${'a'.repeat(501)}`,
      '?status=archived',
      '?orphan=yes',
      '?mode=fuzzy',
      '?sort=title',
    ]) {
      const p = expectProblem(await list(q), 400);
      expect(p.errors?.[0]?.path).toMatch(/^query\./);
    }
  });
});
