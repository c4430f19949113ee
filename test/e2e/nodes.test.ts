import { beforeAll, describe, expect, it } from 'vitest';
import { Node } from '@kg/contracts';
import { api, conforms, createNode, expectProblem, newTenant, UNKNOWN_NODE, type Session } from './support/client';

let s: Session;
beforeAll(async () => {
  s = await newTenant('nodes');
});

type N = Node;
const get = (id: string) => api<N>('GET', `/nodes/${id}`, { auth: s.bearer });
const patch = (id: string, body: unknown) => api<N>('PATCH', `/nodes/${id}`, { auth: s.bearer, body });
const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

describe('POST /nodes', () => {
  it('creates a raw node with content as body_markdown (201) and exactly the contract fields', async () => {
    const before = Date.now();
    const res = await api<N>('POST', '/nodes', {
      auth: s.bearer,
      body: {
        title: 'Spaced repetition',
        content: '# Review\n\nEvery *few* days.',
        summary: 'Intervals',
        tags: ['learning', 'memory'],
        para_item_ids: [],
      },
    });
    expect(res.status).toBe(201);
    const node = conforms(Node, res.body);
    expect(Object.keys(res.body).sort()).toEqual(Object.keys(Node.shape).sort());
    expect(node).toMatchObject({
      title: 'Spaced repetition',
      body_markdown: '# Review\n\nEvery *few* days.',
      summary: 'Intervals',
      tags: ['learning', 'memory'],
      para_item_ids: [],
      status: 'raw',
    });
    expect(node.id).toMatch(/^node_[0-9a-z]{26}$/);
    expect(node.created_at).toMatch(ISO_UTC);
    expect(Date.parse(node.created_at)).toBeGreaterThanOrEqual(before - 5 * 60_000);
    expect(node.updated_at).toBe(node.created_at);
    expect((await get(node.id)).body).toEqual(res.body);
  });

  it('defaults optional fields, trims the title and de-duplicates tags', async () => {
    const n = await createNode(s.bearer, { title: 'Bare' });
    expect(n).toMatchObject({
      title: 'Bare',
      summary: '',
      body_markdown: '',
      tags: [],
      para_item_ids: [],
      status: 'raw',
    });
    const t = await createNode(s.bearer, { title: '  Padded  ', tags: ['a', 'b', 'a'] });
    expect(t).toMatchObject({ title: 'Padded', tags: ['a', 'b'] });
    const ids = new Set([n.id, t.id]);
    expect(ids.size).toBe(2);
  });

  it('validates title, unknown fields and types with 400 and field errors', async () => {
    const cases: Array<[unknown, string]> = [
      [{}, 'title'],
      [{ title: '' }, 'title'],
      [{ title: '   ' }, 'title'],
      [{ title: 'x'.repeat(501) }, 'title'],
      [{ title: 1 }, 'title'],
      [{ title: 'ok', tags: 'x' }, 'tags'],
      [{ title: 'ok', tags: [''] }, 'tags.0'],
      [{ title: 'ok', status: 'validated' }, ''],
      [{ title: 'ok', body: 'typo' }, ''],
    ];
    for (const [body, path] of cases) {
      const p = expectProblem(await api('POST', '/nodes', { auth: s.bearer, body }), 400);
      expect(p.errors?.length, JSON.stringify(body)).toBeGreaterThan(0);
      if (path)
        expect(
          p.errors?.map((e) => e.path),
          JSON.stringify(body),
        ).toContain(path);
    }
    expectProblem(await api('POST', '/nodes', { auth: s.bearer, raw: '[]' }), 400);
    const max = await createNode(s.bearer, { title: 'x'.repeat(500) });
    expect((max as unknown as N).title).toHaveLength(500);
  });

  it('refuses NUL (\\u0000) in title, content, summary and tags with 400 naming the field, on create and patch', async () => {
    const n = await createNode(s.bearer, { title: 'Clean' });
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ title: 'a\u0000b' }, 'title'],
      [{ content: 'a\u0000b' }, 'content'],
      [{ summary: '\u0000' }, 'summary'],
      [{ tags: ['ok', 'a\u0000b'] }, 'tags.1'],
    ];
    for (const [fields, path] of cases) {
      const created = expectProblem(
        await api('POST', '/nodes', { auth: s.bearer, body: { title: 'T', ...fields } }),
        400,
      );
      expect(created.errors, JSON.stringify(fields)).toEqual([{ path, message: expect.stringContaining('NUL') }]);
      const patched = expectProblem(await patch(n.id, fields), 400);
      expect(patched.errors, JSON.stringify(fields)).toEqual([{ path, message: expect.stringContaining('NUL') }]);
    }
    expect((await get(n.id)).body).toEqual(n);
    const q = expectProblem(await api('GET', '/nodes?query=a%00b', { auth: s.bearer }), 400);
    expect(q.errors?.[0]?.path).toBe('query.query');
  });

  it('applies the documented limits to the value as sent: a title is at most 500 characters before trimming', async () => {
    const p = expectProblem(
      await api('POST', '/nodes', { auth: s.bearer, body: { title: ` ${'x'.repeat(500)}` } }),
      400,
    );
    expect(p.errors?.map((e) => e.path)).toEqual(['title']);
    const tag = expectProblem(
      await api('POST', '/nodes', { auth: s.bearer, body: { title: 'ok', tags: [`${'t'.repeat(64)} `] } }),
      400,
    );
    expect(tag.errors?.map((e) => e.path)).toEqual(['tags.0']);
    expect((await createNode(s.bearer, { title: ` ${'x'.repeat(498)} ` })).title).toBe('x'.repeat(498));
  });

  it('rejects PARA item ids that do not exist (400) and creates nothing', async () => {
    const t = await newTenant('nodes-para');
    for (const para_item_ids of [['para_01jd8x6q1bf5r3v2m9w7k4t0za'], ['garbage']]) {
      const p = expectProblem(
        await api('POST', '/nodes', { auth: t.bearer, body: { title: 'x', para_item_ids } }),
        400,
      );
      expect(p.errors?.[0]?.path).toBe('para_item_ids.0');
    }
    expect((await api('GET', '/nodes', { auth: t.bearer })).body).toMatchObject({ total: 0 });
  });
});

describe('GET, PATCH and DELETE /nodes/:id', () => {
  it('reads a node and answers 404 for unknown and malformed ids', async () => {
    const n = await createNode(s.bearer, { title: 'Readable', summary: 'sum' });
    expect((await get(n.id)).body).toEqual(n);
    for (const id of [UNKNOWN_NODE, 'not-an-id', 'node_', 'para_01jd8x6q1bf5r3v2m9w7k4t0za', n.id.toUpperCase()]) {
      const p = expectProblem(await get(id), 404);
      expect(p.detail).not.toContain('SELECT');
    }
  });

  it('patches any subset, persists it, and moves updated_at forward', async () => {
    const n = (await createNode(s.bearer, {
      title: 'Draft',
      content: 'a',
      tags: ['x'],
      summary: 'old',
    })) as unknown as N;
    await new Promise((r) => setTimeout(r, 15));
    const res = await patch(n.id, { status: 'validated', content: 'b' });
    expect(res.status).toBe(200);
    const first = conforms(Node, res.body);
    expect(first).toEqual({ ...n, body_markdown: 'b', status: 'validated', updated_at: first.updated_at });
    expect(Date.parse(first.updated_at)).toBeGreaterThan(Date.parse(n.updated_at));
    await new Promise((r) => setTimeout(r, 15));
    const again = await patch(n.id, { title: 'Final', tags: [], summary: 'S' });
    expect(again.body).toMatchObject({
      title: 'Final',
      tags: [],
      summary: 'S',
      status: 'validated',
      body_markdown: 'b',
      created_at: n.created_at,
    });
    expect(Date.parse(again.body.updated_at)).toBeGreaterThan(Date.parse(first.updated_at));
    expect((await get(n.id)).body).toEqual(again.body);
    await new Promise((r) => setTimeout(r, 15));
    const empty = await patch(n.id, {});
    expect(empty.status).toBe(200);
    expect({ ...empty.body, updated_at: again.body.updated_at }).toEqual(again.body);
    expect(Date.parse(empty.body.updated_at)).toBeGreaterThan(Date.parse(again.body.updated_at));
    for (const status of ['dismissed', 'raw', 'validated'] as const)
      expect((await patch(n.id, { status })).body.status).toBe(status);
  });

  it('rejects invalid patches with 400 without changing the node, and unknown nodes with 404', async () => {
    const n = await createNode(s.bearer, { title: 'P' });
    const cases = [
      { status: 'archived' },
      { status: null },
      { title: '' },
      { title: 'x'.repeat(501) },
      { tags: 'x' },
      { para_item_ids: ['garbage'] },
      { unknown: true },
      { id: 'node_x' },
    ];
    for (const body of cases) expectProblem(await patch(n.id, body), 400);
    expect((await get(n.id)).body).toEqual(n);
    expectProblem(await patch(UNKNOWN_NODE, { title: 'x' }), 404);
    expectProblem(await patch('garbage', { title: 'x' }), 404);
  });

  it('deletes with 204, then answers 404, and removes its links from every neighbour', async () => {
    const a = await createNode(s.bearer, { title: 'A' });
    const b = await createNode(s.bearer, { title: 'B' });
    const c = await createNode(s.bearer, { title: 'C' });
    const links = [
      { target_id: b.id, type: 'related' },
      { target_id: c.id, type: 'supports', weight: 0.5 },
    ];
    expect((await api('PATCH', `/nodes/${a.id}/links`, { auth: s.bearer, body: { links } })).status).toBe(200);
    await api('PATCH', `/nodes/${b.id}/links`, {
      auth: s.bearer,
      body: {
        links: [
          { target_id: a.id, type: 'related' },
          { target_id: c.id, type: 'related' },
        ],
      },
    });
    const del = await api('DELETE', `/nodes/${a.id}`, { auth: s.bearer });
    expect(del.status).toBe(204);
    expect(del.body).toBeUndefined();
    expectProblem(await get(a.id), 404);
    expectProblem(await api('DELETE', `/nodes/${a.id}`, { auth: s.bearer }), 404);
    expectProblem(await patch(a.id, { title: 'zombie' }), 404);
    const related = async (id: string) => (await api('GET', `/nodes/${id}/related?limit=10`, { auth: s.bearer })).body;
    expect(await related(b.id)).toEqual({
      nodes: [{ id: c.id, title: 'C', summary: '', relationship_type: 'related' }],
    });
    expect(await related(c.id)).toEqual({
      nodes: [{ id: b.id, title: 'B', summary: '', relationship_type: 'related' }],
    });
    expectProblem(
      await api('PATCH', `/nodes/${b.id}/links`, {
        auth: s.bearer,
        body: { links: [{ target_id: a.id, type: 'related' }] },
      }),
      400,
    );
  });
});
