import { beforeAll, describe, expect, it } from 'vitest';
import { ParaItem, ParaItemList, ParaTree } from '@kg/contracts';
import { api, conforms, expectProblem, expectUnauthorized, newTenant, type Session } from './support/client';

let s: Session;
let other: Session;
beforeAll(async () => {
  [s, other] = await Promise.all([newTenant('para'), newTenant('para-other')]);
});

type Item = ParaItem;
const UNKNOWN = 'para_01jd8x6q1bf5r3v2m9w7k4t0za';
const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

async function create(auth: string, body: Record<string, unknown>): Promise<Item> {
  const res = await api<Item>('POST', '/para', { auth, body });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return conforms(ParaItem, res.body);
}
const post = (auth: string, id: string, action: string) => api<Item>('POST', `/para/${id}/${action}`, { auth });
const get = (auth: string, id: string) => api<Item>('GET', `/para/${id}`, { auth });
const patch = (auth: string, id: string, body: unknown) => api<Item>('PATCH', `/para/${id}`, { auth, body });

describe('POST /para', () => {
  it('creates an active item (201) with exactly the documented fields and a slug from the label', async () => {
    const res = await api<Item>('POST', '/para', {
      auth: s.bearer,
      body: { category: 'projects', label: '  Launch the Site!  ', description: 'Q3 launch' },
    });
    expect(res.status).toBe(201);
    const item = conforms(ParaItem, res.body);
    expect(Object.keys(res.body).sort()).toEqual(Object.keys(ParaItem.shape).sort());
    expect(item).toMatchObject({
      category: 'projects',
      label: 'Launch the Site!',
      description: 'Q3 launch',
      slug: 'launch-the-site',
      status: 'active',
      completed_at: null,
      archived_at: null,
    });
    expect(item.id).toMatch(/^para_[0-9a-z]{26}$/);
    expect(item.created_at).toMatch(ISO_UTC);
    expect(item.updated_at).toBe(item.created_at);
    expect((await get(s.bearer, item.id)).body).toEqual(res.body);
  });

  it('makes slugs unique per tenant and category: my-label, my-label-2, …; other categories and tenants start over', async () => {
    const t = await newTenant('para-slugs');
    const slugs = [];
    for (let i = 0; i < 3; i++) slugs.push((await create(t.bearer, { category: 'areas', label: 'My Label' })).slug);
    expect(slugs).toEqual(['my-label', 'my-label-2', 'my-label-3']);
    expect((await create(t.bearer, { category: 'resources', label: 'My label' })).slug).toBe('my-label');
    expect((await create(other.bearer, { category: 'areas', label: 'My label' })).slug).toBe('my-label');
    expect((await create(t.bearer, { category: 'areas', label: 'Déjà vu & co' })).slug).toBe('deja-vu-and-co');
    expect((await create(t.bearer, { category: 'areas', label: '???' })).slug).toBe('item');
  });

  it('concurrent creations with one label still get distinct slugs', async () => {
    const t = await newTenant('para-race');
    const made = await Promise.all(
      Array.from({ length: 6 }, () =>
        api<Item>('POST', '/para', { auth: t.bearer, body: { category: 'projects', label: 'Race' } }),
      ),
    );
    expect(made.map((r) => r.status)).toEqual(Array(6).fill(201));
    expect(new Set(made.map((r) => r.body.slug)).size).toBe(6);
  });

  it('rejects invalid bodies with 400 and field errors', async () => {
    const cases: Array<[unknown, string]> = [
      [{}, 'category'],
      [{ category: 'projects' }, 'label'],
      [{ category: 'projects', label: '   ' }, 'label'],
      [{ category: 'project', label: 'x' }, 'category'],
      [{ category: 'projects', label: 'x'.repeat(201) }, 'label'],
      [{ category: 'projects', label: 'x', description: 5 }, 'description'],
      [{ category: 'projects', label: 'x', slug: 'mine' }, ''],
    ];
    for (const [body, path] of cases) {
      const p = expectProblem(await api('POST', '/para', { auth: s.bearer, body }), 400);
      expect(p.errors?.length, JSON.stringify(body)).toBeGreaterThan(0);
      if (path) expect(p.errors?.map((e) => e.path)).toContain(path);
    }
  });
});

describe('GET /para, /para/tree, /para/:id', () => {
  it('lists with category and status filters, and groups the tree as projects, areas, resources', async () => {
    const t = await newTenant('para-list');
    const empty = await api('GET', '/para/tree', { auth: t.bearer });
    expect(empty.body).toEqual({
      categories: [
        { category: 'projects', items: [] },
        { category: 'areas', items: [] },
        { category: 'resources', items: [] },
      ],
    });
    expect((await api('GET', '/para', { auth: t.bearer })).body).toEqual({ data: [] });
    const r = await create(t.bearer, { category: 'resources', label: 'Papers' });
    const p1 = await create(t.bearer, { category: 'projects', label: 'One' });
    const p2 = await create(t.bearer, { category: 'projects', label: 'Two' });
    const a = await create(t.bearer, { category: 'areas', label: 'Health' });
    expect((await post(t.bearer, p2.id, 'archive')).status).toBe(200);

    const all = conforms(ParaItemList, (await api('GET', '/para', { auth: t.bearer })).body);
    expect(all.data.map((i) => i.id)).toEqual([p1.id, p2.id, a.id, r.id]);
    const ids = async (q: string) =>
      ((await api<{ data: Item[] }>('GET', `/para${q}`, { auth: t.bearer })).body.data ?? []).map((i) => i.id);
    expect(await ids('?category=projects')).toEqual([p1.id, p2.id]);
    expect(await ids('?status=active')).toEqual([p1.id, a.id, r.id]);
    expect(await ids('?status=archived')).toEqual([p2.id]);
    expect(await ids('?category=projects&status=active')).toEqual([p1.id]);
    expect(await ids('?category=areas&status=archived')).toEqual([]);

    const tree = conforms(ParaTree, (await api('GET', '/para/tree', { auth: t.bearer })).body);
    expect(tree.categories.map((c) => [c.category, c.items.map((i) => i.id)])).toEqual([
      ['projects', [p1.id, p2.id]],
      ['areas', [a.id]],
      ['resources', [r.id]],
    ]);
  });

  it('rejects unknown filter values and parameters with 400', async () => {
    for (const q of ['?category=project', '?status=deleted', '?page=1', '?category=']) {
      expectProblem(await api('GET', `/para${q}`, { auth: s.bearer }), 400);
    }
  });

  it('answers 404 for unknown, malformed and other tenants’ ids on every item operation', async () => {
    const mine = await create(s.bearer, { category: 'projects', label: 'Private' });
    for (const id of [UNKNOWN, 'not-an-id', mine.id.toUpperCase(), mine.id]) {
      const auth = id === mine.id ? other.bearer : s.bearer;
      expectProblem(await get(auth, id), 404);
      expectProblem(await patch(auth, id, { label: 'x' }), 404);
      for (const action of ['complete', 'undo-complete', 'archive', 'unarchive']) {
        expectProblem(await post(auth, id, action), 404);
      }
    }
    expect((await get(s.bearer, mine.id)).body).toMatchObject({ label: 'Private', status: 'active' });
    expect(
      (await api<{ data: Item[] }>('GET', '/para', { auth: other.bearer })).body.data.map((i) => i.id),
    ).not.toContain(mine.id);
  });
});

describe('PATCH /para/:id', () => {
  it('updates label and description and keeps the slug stable unless regenerate_slug is true', async () => {
    const item = await create(s.bearer, { category: 'areas', label: 'Fitness' });
    const res = await patch(s.bearer, item.id, { label: 'Strength', description: 'Lifting' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ label: 'Strength', description: 'Lifting', slug: 'fitness', status: 'active' });
    expect(Date.parse(res.body.updated_at)).toBeGreaterThanOrEqual(Date.parse(item.updated_at));
    const again = await patch(s.bearer, item.id, { regenerate_slug: true });
    expect(again.body).toMatchObject({ label: 'Strength', slug: 'strength' });
    expect((await get(s.bearer, item.id)).body).toEqual(again.body);
  });

  it('status archived archives and status active restores; invalid bodies are 400', async () => {
    const item = await create(s.bearer, { category: 'resources', label: 'Recipes' });
    const archived = await patch(s.bearer, item.id, { status: 'archived' });
    expect(archived.body).toMatchObject({ status: 'archived', archived_at: expect.stringMatching(ISO_UTC) });
    const active = await patch(s.bearer, item.id, { status: 'active' });
    expect(active.body).toMatchObject({ status: 'active', archived_at: null });
    for (const body of [{ status: 'completed' }, { label: '' }, { slug: 'x' }, { category: 'areas' }, []]) {
      expectProblem(await patch(s.bearer, item.id, body), 400);
    }
  });
});

describe('lifecycle', () => {
  it('completes and un-completes projects; areas and resources answer 409', async () => {
    const project = await create(s.bearer, { category: 'projects', label: 'Ship v2' });
    const done = await post(s.bearer, project.id, 'complete');
    expect(done.status).toBe(200);
    expect(done.body).toMatchObject({ status: 'completed', completed_at: expect.stringMatching(ISO_UTC) });
    const twice = await post(s.bearer, project.id, 'complete');
    expect(twice.body).toEqual(done.body);
    const undone = await post(s.bearer, project.id, 'undo-complete');
    expect(undone.body).toMatchObject({ status: 'active', completed_at: null });
    expect((await post(s.bearer, project.id, 'undo-complete')).body).toEqual(undone.body);

    for (const category of ['areas', 'resources']) {
      const item = await create(s.bearer, { category, label: `Not a project ${category}` });
      for (const action of ['complete', 'undo-complete']) {
        const p = expectProblem(await post(s.bearer, item.id, action), 409);
        expect(p.detail).toMatch(/project/i);
      }
      expect((await get(s.bearer, item.id)).body).toEqual(item);
    }
  });

  it('archive and unarchive are idempotent; unarchive restores the status before archiving', async () => {
    const project = await create(s.bearer, { category: 'projects', label: 'Old project' });
    await post(s.bearer, project.id, 'complete');
    const a1 = await post(s.bearer, project.id, 'archive');
    expect(a1.status).toBe(200);
    expect(a1.body).toMatchObject({ status: 'archived', archived_at: expect.stringMatching(ISO_UTC) });
    const a2 = await post(s.bearer, project.id, 'archive');
    expect(a2.body).toEqual(a1.body);
    expectProblem(await post(s.bearer, project.id, 'complete'), 409);
    const u1 = await post(s.bearer, project.id, 'unarchive');
    expect(u1.body).toMatchObject({ status: 'completed', archived_at: null });
    expect((await post(s.bearer, project.id, 'unarchive')).body).toEqual(u1.body);
  });

  it('DELETE is always 410 Gone, for known, unknown and other tenants’ ids alike', async () => {
    const item = await create(s.bearer, { category: 'areas', label: 'Keep me' });
    for (const [auth, id] of [
      [s.bearer, item.id],
      [other.bearer, item.id],
      [s.bearer, UNKNOWN],
      [s.bearer, 'anything'],
    ] as const) {
      const p = expectProblem(await api('DELETE', `/para/${id}`, { auth }), 410);
      expect(p.detail).toMatch(/archive/i);
    }
    expect((await get(s.bearer, item.id)).body).toEqual(item);
  });

  it('every PARA endpoint needs credentials (401)', async () => {
    for (const [method, path] of [
      ['GET', '/para/tree'],
      ['GET', '/para'],
      ['POST', '/para'],
      ['GET', `/para/${UNKNOWN}`],
      ['PATCH', `/para/${UNKNOWN}`],
      ['POST', `/para/${UNKNOWN}/archive`],
      ['DELETE', `/para/${UNKNOWN}`],
    ]) {
      expectUnauthorized(await api(method!, path!, method === 'GET' || method === 'DELETE' ? {} : { body: {} }));
    }
  });
});
