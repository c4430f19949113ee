import { beforeAll, describe, expect, it } from 'vitest';
import { api, createNode, expectProblem, newTenant, type Session } from './support/client';

let s: Session;
beforeAll(async () => {
  s = await newTenant('nodes');
});

describe('POST /nodes', () => {
  it('creates a raw node with content as body_markdown (201)', async () => {
    const res = await api('POST', '/nodes', {
      auth: s.bearer,
      body: {
        title: 'Spaced repetition',
        content: '# Review',
        summary: 'Intervals',
        tags: ['learning'],
        para_item_ids: [],
      },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      title: 'Spaced repetition',
      body_markdown: '# Review',
      summary: 'Intervals',
      tags: ['learning'],
      para_item_ids: [],
      status: 'raw',
    });
    expect(res.body.id).toMatch(/^node_[0-9a-z]{26}$/);
    expect(Date.parse(res.body.created_at)).not.toBeNaN();
    expect(res.body.updated_at).toBe(res.body.created_at);
    expect(res.body).not.toHaveProperty('content');
  });

  it('defaults optional fields', async () => {
    const n = await createNode(s.bearer, { title: 'Bare' });
    expect(n).toMatchObject({ summary: '', body_markdown: '', tags: [], para_item_ids: [] });
  });

  it('validates title, unknown fields, types and PARA ids (400)', async () => {
    for (const body of [
      {},
      { title: '' },
      { title: '   ' },
      { title: 'x'.repeat(501) },
      { title: 1 },
      { title: 'ok', body: 'typo' },
      { title: 'ok', tags: 'x' },
    ]) {
      const p = expectProblem(await api('POST', '/nodes', { auth: s.bearer, body }), 400);
      expect(p.errors?.length).toBeGreaterThan(0);
    }
    expect((await api('POST', '/nodes', { auth: s.bearer, body: { title: 'x'.repeat(500) } })).status).toBe(201);
    const p = expectProblem(
      await api('POST', '/nodes', {
        auth: s.bearer,
        body: { title: 'x', para_item_ids: ['para_01jd8x6q1bf5r3v2m9w7k4t0za'] },
      }),
      400,
    );
    expect(p.errors?.[0]?.path).toBe('para_item_ids.0');
  });
});

describe('GET, PATCH and DELETE /nodes/:id', () => {
  it('reads a node and answers 404 for unknown and malformed ids', async () => {
    const n = await createNode(s.bearer, { title: 'Readable' });
    expect((await api('GET', `/nodes/${n.id}`, { auth: s.bearer })).body).toEqual(n);
    expectProblem(await api('GET', '/nodes/node_01jd8x6q1bf5r3v2m9w7k4t0za', { auth: s.bearer }), 404);
    expectProblem(await api('GET', '/nodes/not-an-id', { auth: s.bearer }), 404);
  });

  it('patches any subset and moves updated_at', async () => {
    const n = await createNode(s.bearer, { title: 'Draft', content: 'a', tags: ['x'] });
    await new Promise((r) => setTimeout(r, 10));
    const res = await api('PATCH', `/nodes/${n.id}`, { auth: s.bearer, body: { status: 'validated', content: 'b' } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      title: 'Draft',
      body_markdown: 'b',
      status: 'validated',
      tags: ['x'],
      created_at: n.created_at,
    });
    expect(Date.parse(res.body.updated_at)).toBeGreaterThan(Date.parse(n.updated_at));
    const again = await api('PATCH', `/nodes/${n.id}`, {
      auth: s.bearer,
      body: { title: 'Final', tags: [], summary: 'S' },
    });
    expect(again.body).toMatchObject({ title: 'Final', tags: [], summary: 'S', status: 'validated' });
    expect((await api('PATCH', `/nodes/${n.id}`, { auth: s.bearer, body: { status: 'dismissed' } })).body.status).toBe(
      'dismissed',
    );
  });

  it('rejects invalid patches (400) and unknown nodes (404)', async () => {
    const n = await createNode(s.bearer, { title: 'P' });
    for (const body of [{ status: 'archived' }, { title: '' }, { para_item_ids: [] }, { unknown: true }]) {
      expectProblem(await api('PATCH', `/nodes/${n.id}`, { auth: s.bearer, body }), 400);
    }
    expectProblem(
      await api('PATCH', '/nodes/node_01jd8x6q1bf5r3v2m9w7k4t0za', { auth: s.bearer, body: { title: 'x' } }),
      404,
    );
  });

  it('deletes with 204 and removes the links on both sides', async () => {
    const a = await createNode(s.bearer, { title: 'A' });
    const b = await createNode(s.bearer, { title: 'B' });
    await api('PATCH', `/nodes/${a.id}/links`, {
      auth: s.bearer,
      body: { links: [{ target_id: b.id, type: 'related' }] },
    });
    const del = await api('DELETE', `/nodes/${a.id}`, { auth: s.bearer });
    expect(del.status).toBe(204);
    expectProblem(await api('GET', `/nodes/${a.id}`, { auth: s.bearer }), 404);
    expectProblem(await api('DELETE', `/nodes/${a.id}`, { auth: s.bearer }), 404);
    expect((await api('GET', `/nodes/${b.id}/related?limit=10`, { auth: s.bearer })).body).toEqual({ nodes: [] });
  });
});
