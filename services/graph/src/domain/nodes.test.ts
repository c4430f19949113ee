import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HARNESS_TIMEOUT, graphHarness, identity, problemOf, statusOf, type GraphHarness } from '../testing';

const P1 = 'para_01jd8x6q1bf5r3v2m9w7k4t0za';
const P2 = 'para_01jd8x6q1bf5r3v2m9w7k4t0zb';
const OTHER_TENANTS_PARA = 'para_01jd8x6q1bf5r3v2m9w7k4t0zc';
const UNKNOWN_PARA = 'para_01jd8x6q1bf5r3v2m9w7k4t0zd';
const UNKNOWN_NODE = 'node_01jd8x6q1bf5r3v2m9w7k4t0za';
const tick = () => new Promise((r) => setTimeout(r, 5));

let h: GraphHarness;
beforeAll(async () => {
  const para = new Map<string, Set<string>>();
  for (let t = 1; t <= 9; t++) para.set(identity(t).tenantId, new Set([P1, P2]));
  para.set(identity(2).tenantId, new Set([OTHER_TENANTS_PARA]));
  h = await graphHarness({ para });
}, HARNESS_TIMEOUT);
afterAll(() => h.database.close());

describe('nodes.create', () => {
  it('stores content as body_markdown, starts raw, dedupes tags and PARA ids in order', async () => {
    const n = await h.as(1).nodes.create({
      title: 'Zettelkasten',
      content: '# Notes',
      summary: 'S',
      tags: ['pkm', 'notes', 'pkm'],
      para_item_ids: [P2, P1, P2],
    });
    expect(n).toMatchObject({
      title: 'Zettelkasten',
      body_markdown: '# Notes',
      summary: 'S',
      tags: ['pkm', 'notes'],
      para_item_ids: [P2, P1],
      status: 'raw',
    });
    expect(n.id).toMatch(/^node_[0-7][0-9a-hjkmnp-tv-z]{25}$/);
    expect(n.updated_at).toBe(n.created_at);
    expect(await h.as(1).nodes.get({ id: n.id })).toEqual(n);
  });

  it('rejects PARA ids the PARA service does not know for the tenant, with their paths', async () => {
    const problem = await problemOf(
      h.as(1).nodes.create({ title: 'x', para_item_ids: [P1, OTHER_TENANTS_PARA, UNKNOWN_PARA] }),
    );
    expect(problem).toMatchObject({ status: 400, detail: 'Unknown PARA item' });
    expect(problem?.errors).toEqual([
      { path: 'para_item_ids.1', message: 'no such PARA item' },
      { path: 'para_item_ids.2', message: 'no such PARA item' },
    ]);
    expect((await h.as(2).nodes.create({ title: 'ok', para_item_ids: [OTHER_TENANTS_PARA] })).para_item_ids).toEqual([
      OTHER_TENANTS_PARA,
    ]);
  });
});

describe('nodes.get, update, delete', () => {
  it('answers 404 for unknown, malformed and other tenants’ ids', async () => {
    const n = await h.as(3).nodes.create({ title: 'Private' });
    for (const id of [UNKNOWN_NODE, 'garbage', 'para_01jd8x6q1bf5r3v2m9w7k4t0za', `${n.id}x`])
      expect(await statusOf(h.as(3).nodes.get({ id }))).toBe(404);
    expect(await statusOf(h.as(4).nodes.get({ id: n.id }))).toBe(404);
    expect(await statusOf(h.as(4).nodes.update({ id: n.id, patch: { title: 'x' } }))).toBe(404);
    expect(await statusOf(h.as(4).nodes.delete({ id: n.id }))).toBe(404);
    expect(await h.as(3).nodes.get({ id: n.id })).toEqual(n);
  });

  it('patches any subset, keeps the rest and moves updated_at', async () => {
    const n = await h.as(3).nodes.create({ title: 'Draft', content: 'a', tags: ['x'], para_item_ids: [P1] });
    await tick();
    const p = await h.as(3).nodes.update({ id: n.id, patch: { status: 'validated', content: 'b' } });
    expect(p).toEqual({ ...n, status: 'validated', body_markdown: 'b', updated_at: p.updated_at });
    expect(p.updated_at > n.updated_at).toBe(true);
    const q = await h.as(3).nodes.update({ id: n.id, patch: { title: 'Final', tags: [], summary: 'S' } });
    expect(q).toMatchObject({ title: 'Final', tags: [], summary: 'S', status: 'validated', body_markdown: 'b' });
    expect(await h.as(3).nodes.get({ id: n.id })).toEqual(q);
  });

  it('an empty patch returns the node unchanged except updated_at (documented decision)', async () => {
    const n = await h.as(3).nodes.create({ title: 'Same' });
    await tick();
    const p = await h.as(3).nodes.update({ id: n.id, patch: {} });
    expect({ ...p, updated_at: n.updated_at }).toEqual(n);
    expect(p.updated_at > n.updated_at).toBe(true);
  });

  it('deletes once; the node is gone afterwards', async () => {
    const n = await h.as(3).nodes.create({ title: 'Gone' });
    expect(await h.as(3).nodes.delete({ id: n.id })).toEqual({ deleted: true });
    expect(await statusOf(h.as(3).nodes.get({ id: n.id }))).toBe(404);
    expect(await statusOf(h.as(3).nodes.delete({ id: n.id }))).toBe(404);
    expect(await statusOf(h.as(3).nodes.delete({ id: 'garbage' }))).toBe(404);
  });
});

describe('nodes.list', () => {
  const T = 5;
  const ids: Record<string, string> = {};
  const list = (q: Record<string, unknown> = {}) => h.as(T).nodes.list({ page: 1, per_page: 20, ...q });
  const idsOf = (p: { data: Array<{ id: string }> }) => p.data.map((n) => n.id);

  beforeAll(async () => {
    const make = async (key: string, input: Parameters<ReturnType<GraphHarness['as']>['nodes']['create']>[0]) => {
      ids[key] = (await h.as(T).nodes.create(input)).id;
    };
    await make('body', { title: 'Gardening', content: 'compost feeds photosynthesis', para_item_ids: [P1] });
    await make('title', { title: 'Photosynthesis basics', content: 'light', para_item_ids: [P1, P2] });
    await make('tag', { title: 'Leaves', tags: ['photosynthesis'] });
    await make('none', { title: 'Unrelated', content: 'nothing here' });
    await h.as(T).nodes.update({ id: ids['body']!, patch: { status: 'validated' } });
    await h.as(6).nodes.create({ title: 'Photosynthesis of another tenant' });
  }, HARNESS_TIMEOUT);

  it('lists newest first with totals, page and per_page', async () => {
    const all = await list();
    expect(all).toMatchObject({ total: 4, page: 1, per_page: 20 });
    expect(idsOf(all)).toEqual([ids['none'], ids['tag'], ids['title'], ids['body']]);
    const page2 = await list({ page: 2, per_page: 3 });
    expect(page2).toMatchObject({ total: 4, page: 2, per_page: 3 });
    expect(idsOf(page2)).toEqual([ids['body']]);
    expect(await list({ page: 3, per_page: 3 })).toEqual({ data: [], total: 4, page: 3, per_page: 3 });
  });

  it('filters by PARA item, status and orphan, and combines filters', async () => {
    expect(idsOf(await list({ para_item_id: P1 }))).toEqual([ids['title'], ids['body']]);
    expect(idsOf(await list({ para_item_id: P2 }))).toEqual([ids['title']]);
    expect((await list({ para_item_id: 'garbage' })).total).toBe(0);
    expect(idsOf(await list({ status: 'validated' }))).toEqual([ids['body']]);
    expect((await list({ status: 'raw' })).total).toBe(3);
    expect(idsOf(await list({ orphan: true }))).toEqual([ids['none'], ids['tag']]);
    expect(idsOf(await list({ orphan: false }))).toEqual([ids['title'], ids['body']]);
    expect(idsOf(await list({ orphan: false, status: 'raw' }))).toEqual([ids['title']]);
  });

  it('ranks keyword matches: title above tags above body; other tenants never match', async () => {
    const found = await list({ query: 'photosynthesis' });
    expect(idsOf(found)).toEqual([ids['title'], ids['tag'], ids['body']]);
    expect(found.total).toBe(3);
    expect(idsOf(await list({ query: 'Photosynthesis', mode: 'keyword' }))).toEqual(idsOf(found));
    expect(await list({ query: 'photosynthesis', per_page: 1, page: 2 })).toMatchObject({
      total: 3,
      data: [{ id: ids['tag'] }],
    });
    expect(idsOf(await list({ query: 'photosynthesis', status: 'validated' }))).toEqual([ids['body']]);
    // Plain words: quotes and a dash are not operators, so `light` matches too (below the phrase).
    expect(idsOf(await list({ query: '"compost feeds" -light' }))).toEqual([ids['body'], ids['title']]);
  });

  it('answers an empty page for stop words only; a blank query lists everything', async () => {
    expect(await list({ query: 'the and of' })).toEqual({ data: [], total: 0, page: 1, per_page: 20 });
    expect((await list({ query: '   ' })).total).toBe(4);
  });

  it('answers 501 for semantic and hybrid search', async () => {
    for (const mode of ['semantic', 'hybrid'] as const) {
      const problem = await problemOf(list({ query: 'photosynthesis', mode }));
      expect(problem).toMatchObject({ status: 501 });
      expect(problem?.detail).toContain('Semantic and hybrid search');
      expect(await statusOf(list({ mode }))).toBe(501);
    }
  });
});
