import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LinkEvent, NodeEvent, TOPICS } from '@kg/contracts';
import { HARNESS_TIMEOUT, graphHarness, identity, statusOf, type GraphHarness } from '../testing';

const PARA = 'para_01jd8x6q1bf5r3v2m9w7k4t0za';
let h: GraphHarness;
beforeAll(async () => {
  h = await graphHarness({ para: new Set([PARA]), outboxPollMs: 60_000 });
}, HARNESS_TIMEOUT);
afterAll(() => h.database.close());

/** The tenant's outbox rows, each checked against its topic's event schema. */
async function events(t: number) {
  const rows = await h.outbox(t);
  for (const r of rows) expect(r.key).toBe(identity(t).tenantId);
  return rows.map((r) => (r.topic === TOPICS.graphNodes ? NodeEvent.parse(r.payload) : LinkEvent.parse(r.payload)));
}

describe('events in the outbox', () => {
  it('node.created, node.updated (changed fields) and node.deleted (unlinked ids)', async () => {
    const c = h.as(1);
    const n = await c.nodes.create({ title: 'Evented', tags: ['a'], para_item_ids: [PARA] });
    await c.nodes.update({ id: n.id, patch: { content: 'new body', status: 'validated', title: 'Evented' } });
    await c.nodes.update({ id: n.id, patch: {} });
    const [x, y] = await Promise.all(['X', 'Y'].map(async (title) => (await c.nodes.create({ title })).id));
    await c.links.replace({
      id: n.id,
      links: [
        { target_id: y!, type: 'related' },
        { target_id: x!, type: 'related' },
      ],
    });
    await c.nodes.delete({ id: n.id });
    const all = await events(1);
    expect(all.map((e) => e.type)).toEqual([
      'node.created',
      'node.updated',
      'node.updated',
      'node.created',
      'node.created',
      'links.changed',
      'node.deleted',
    ]);
    expect(all[0]).toMatchObject({
      tenant_id: identity(1).tenantId,
      data: {
        node: {
          id: n.id,
          title: 'Evented',
          tags: ['a'],
          status: 'raw',
          para_item_ids: [PARA],
          source_capture_id: null,
        },
      },
    });
    expect(all[1]).toMatchObject({ data: { node: { status: 'validated' }, changed: ['body_markdown', 'status'] } });
    expect(all[2]).toMatchObject({ data: { changed: [] } });
    expect(all[6]).toMatchObject({ type: 'node.deleted', data: { node_id: n.id, unlinked_ids: [x, y].sort() } });
    expect(new Set(all.map((e) => e.id)).size).toBe(all.length);
    // Each event carries the version its write took: strictly increasing, one per write.
    expect(all.map((e) => e.version)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    for (const e of all) expect(e.id).toMatch(/^evt_/);
  });

  it('links.changed lists added and removed links; a replacement that changes nothing writes none', async () => {
    const c = h.as(2);
    const [a, b, d] = await Promise.all(['A', 'B', 'D'].map(async (title) => (await c.nodes.create({ title })).id));
    await c.links.replace({ id: a!, links: [{ target_id: b!, type: 'related', weight: 0.5 }] });
    await c.links.replace({ id: a!, links: [{ target_id: b!, type: 'related', weight: 0.5 }] });
    await c.links.replace({ id: a!, links: [{ target_id: d!, type: 'supports', weight: 1 }] });
    const changes = (await events(2)).filter((e) => e.type === 'links.changed');
    expect(changes.map((e) => e.data)).toEqual([
      { node_id: a, added: [{ target_id: b, type: 'related', weight: 0.5 }], removed: [] },
      { node_id: a, added: [{ target_id: d, type: 'supports', weight: 1 }], removed: [b] },
    ]);
  });

  it('a rejected write leaves no event behind', async () => {
    const c = h.as(3);
    const a = await c.nodes.create({ title: 'A' });
    const before = (await h.outbox(3)).length;
    const unknownPara = 'para_01jd8x6q1bf5r3v2m9w7k4t0zb';
    expect(await statusOf(c.nodes.create({ title: 'x', para_item_ids: [unknownPara] }))).toBe(400);
    const unknownNode = 'node_01jd8x6q1bf5r3v2m9w7k4t0za';
    expect(await statusOf(c.links.replace({ id: a.id, links: [{ target_id: unknownNode, type: 'related' }] }))).toBe(
      400,
    );
    expect(await statusOf(c.nodes.update({ id: unknownNode, patch: { title: 'x' } }))).toBe(404);
    expect((await h.outbox(3)).length).toBe(before);
  });
});

describe('outbox relay', () => {
  it('publishes committed events to the bus once the module is started, without a manual flush', async () => {
    const nodeEvents: NodeEvent[] = [];
    const linkEvents: LinkEvent[] = [];
    await h.bus.subscribe({ topic: TOPICS.graphNodes, group: 't', handler: async (e) => void nodeEvents.push(e) });
    await h.bus.subscribe({ topic: TOPICS.graphLinks, group: 't', handler: async (e) => void linkEvents.push(e) });
    await h.module.start();
    expect(await h.module.ready()).toBe(true);
    const c = h.as(4);
    const a = await c.nodes.create({ title: 'A' });
    const b = await c.nodes.create({ title: 'B' });
    await c.links.replace({ id: a.id, links: [{ target_id: b.id, type: 'related' }] });
    // The poll is a minute away: only the wake after each commit can publish this fast.
    const deadline = Date.now() + 2_000;
    const tenant = identity(4).tenantId;
    while (!linkEvents.some((e) => e.tenant_id === tenant) && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 10));
      await h.bus.drain();
    }
    const mine = nodeEvents.filter((e) => e.tenant_id === tenant);
    expect(mine.map((e) => e.type === 'node.created' && e.data.node.id)).toEqual([a.id, b.id]);
    // Earlier tests' events (other tenants) were waiting in the outbox too: all are published.
    expect(new Set(nodeEvents.map((e) => e.tenant_id)).size).toBe(4);
    expect(linkEvents.filter((e) => e.tenant_id === tenant).map((e) => e.data)).toEqual([
      { node_id: a.id, added: [{ target_id: b.id, type: 'related', weight: 1 }], removed: [] },
    ]);
    await h.module.stop();
    expect((await h.outbox(4)).every((r) => r.publishedAt !== null)).toBe(true);
    expect(await h.bus.deadLetters.list()).toEqual([]);
    // Stopped: later commits wait in the outbox, unpublished, for the next start.
    const late = await c.nodes.create({ title: 'Late' });
    await new Promise((r) => setTimeout(r, 50));
    await h.bus.drain();
    expect(nodeEvents.some((e) => e.type === 'node.created' && e.data.node.id === late.id)).toBe(false);
    expect((await h.outbox(4)).at(-1)?.publishedAt).toBeNull();
  });
});
