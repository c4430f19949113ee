import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TOPICS, type NodeEvent } from '@kg/contracts';
import { problemFromClientError } from '@kg/trpc';
import { graphHarness } from './testing';

const PARA = 'para_01jd8x6q1bf5r3v2m9w7k4t0za';
let h: Awaited<ReturnType<typeof graphHarness>>;
beforeAll(async () => {
  h = await graphHarness(new Set([PARA]));
});
afterAll(() => h.database.close());

const statusOf = (p: Promise<unknown>) =>
  p.then(
    () => 200,
    (e: unknown) => problemFromClientError(e, 'graph')?.status,
  );
const fieldErrors = (p: Promise<unknown>) =>
  p.then(
    () => [],
    (e: unknown) => problemFromClientError(e, 'graph')?.errors ?? [],
  );

describe('nodes', () => {
  it('creates, reads, patches and deletes', async () => {
    const n = await h.as(1).nodes.create({ title: 'Zettelkasten', content: '# Notes', tags: ['pkm', 'pkm'] });
    expect(n).toMatchObject({
      title: 'Zettelkasten',
      body_markdown: '# Notes',
      tags: ['pkm'],
      status: 'raw',
      para_item_ids: [],
    });
    expect(await h.as(1).nodes.get({ id: n.id })).toEqual(n);
    await new Promise((r) => setTimeout(r, 5));
    const p = await h.as(1).nodes.update({ id: n.id, patch: { status: 'validated', summary: 's' } });
    expect(p).toMatchObject({ status: 'validated', summary: 's', title: 'Zettelkasten' });
    expect(p.updated_at > n.updated_at).toBe(true);
    await h.as(1).nodes.delete({ id: n.id });
    expect(await statusOf(h.as(1).nodes.get({ id: n.id }))).toBe(404);
    expect(await statusOf(h.as(1).nodes.delete({ id: n.id }))).toBe(404);
  });

  it('hides nodes of other tenants and malformed ids as 404', async () => {
    const n = await h.as(1).nodes.create({ title: 'Private' });
    expect(await statusOf(h.as(2).nodes.get({ id: n.id }))).toBe(404);
    expect(await statusOf(h.as(2).nodes.update({ id: n.id, patch: { title: 'x' } }))).toBe(404);
    expect(await statusOf(h.as(2).nodes.delete({ id: n.id }))).toBe(404);
    expect(await statusOf(h.as(1).nodes.get({ id: 'garbage' }))).toBe(404);
  });

  it('accepts known PARA items only', async () => {
    const n = await h.as(3).nodes.create({ title: 'Assigned', para_item_ids: [PARA] });
    expect(n.para_item_ids).toEqual([PARA]);
    expect(
      await fieldErrors(h.as(3).nodes.create({ title: 'x', para_item_ids: [PARA, 'para_01jd8x6q1bf5r3v2m9w7k4t0zz'] })),
    ).toEqual([{ path: 'para_item_ids.1', message: 'no such PARA item' }]);
  });

  it('filters, pages and ranks keyword search (title above body)', async () => {
    const t = 4;
    const body = await h.as(t).nodes.create({ title: 'Gardening', content: 'compost and photosynthesis' });
    const title = await h.as(t).nodes.create({ title: 'Photosynthesis basics', content: 'light' });
    await h.as(t).nodes.create({ title: 'Unrelated', content: 'nothing' });
    await h.as(t).nodes.update({ id: body.id, patch: { status: 'validated' } });
    const found = await h.as(t).nodes.list({ query: 'photosynthesis', page: 1, per_page: 20 });
    expect(found.data.map((n) => n.id)).toEqual([title.id, body.id]);
    expect(found.total).toBe(2);
    expect((await h.as(t).nodes.list({ status: 'validated', page: 1, per_page: 20 })).data.map((n) => n.id)).toEqual([
      body.id,
    ]);
    const page2 = await h.as(t).nodes.list({ page: 2, per_page: 2 });
    expect(page2).toMatchObject({ total: 3, page: 2, per_page: 2 });
    expect(page2.data).toHaveLength(1);
    expect((await h.as(t).nodes.list({ orphan: false, page: 1, per_page: 20 })).total).toBe(0);
    expect((await h.as(t).nodes.list({ query: 'the and of', page: 1, per_page: 20 })).total).toBe(0);
    expect(await statusOf(h.as(t).nodes.list({ mode: 'hybrid', query: 'x', page: 1, per_page: 20 }))).toBe(501);
  });
});

describe('links', () => {
  it('replaces links in both directions and keeps connection counts', async () => {
    const t = 5;
    const [a, b, c] = await Promise.all(['A', 'B', 'C'].map((title) => h.as(t).nodes.create({ title })));
    const res = await h.as(t).links.replace({
      id: a!.id,
      links: [
        { target_id: b!.id, type: 'supports', weight: 0.5 },
        { target_id: c!.id, type: 'related', weight: 1 },
      ],
    });
    expect(res.links).toEqual([
      { target_id: c!.id, type: 'related', weight: 1 },
      { target_id: b!.id, type: 'supports', weight: 0.5 },
    ]);
    expect((await h.as(t).links.related({ id: b!.id, limit: 10 })).nodes).toEqual([
      { id: a!.id, title: 'A', summary: '', relationship_type: 'supports' },
    ]);
    await h.as(t).links.replace({ id: a!.id, links: [{ target_id: c!.id, type: 'related', weight: 1 }] });
    expect((await h.as(t).links.related({ id: b!.id, limit: 10 })).nodes).toEqual([]);
    await h.as(t).nodes.delete({ id: c!.id });
    expect((await h.as(t).links.related({ id: a!.id, limit: 10 })).nodes).toEqual([]);
  });

  it('rejects self-links, duplicates, unknown and foreign targets; 404 for unknown source', async () => {
    const a = await h.as(6).nodes.create({ title: 'A' });
    const foreign = await h.as(7).nodes.create({ title: 'F' });
    const errors = await fieldErrors(
      h.as(6).links.replace({
        id: a.id,
        links: [
          { target_id: a.id, type: 'related', weight: 1 },
          { target_id: foreign.id, type: 'related', weight: 1 },
        ],
      }),
    );
    expect(errors.map((e) => e.path)).toEqual(['links.0.target_id']);
    expect(
      (
        await fieldErrors(
          h.as(6).links.replace({ id: a.id, links: [{ target_id: foreign.id, type: 'related', weight: 1 }] }),
        )
      )[0]?.path,
    ).toBe('links.0.target_id');
    expect(await statusOf(h.as(6).links.replace({ id: foreign.id, links: [] }))).toBe(404);
  });

  it('writes events in the outbox and the relay publishes them', async () => {
    const seen: NodeEvent[] = [];
    await h.bus.subscribe({ topic: TOPICS.graphNodes, group: 'test', handler: async (e) => void seen.push(e) });
    const n = await h.as(8).nodes.create({ title: 'Evented' });
    await h.module.flushEvents();
    await h.bus.drain();
    expect(seen.some((e) => e.type === 'node.created' && e.data.node.id === n.id)).toBe(true);
  });
});
