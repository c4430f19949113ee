import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { sql } from 'drizzle-orm';
import { graphApi, ProposalEvent, TOPICS, type Proposal } from '@kg/contracts';
import { connectService } from '@kg/trpc';
import { HARNESS_TIMEOUT, graphHarness, identity, problemOf, statusOf, type GraphHarness } from '../testing';
import { captureNodeId } from './capture-nodes';
import { LINK_PROPOSAL_MIN_SCORE, MAX_LINK_PROPOSALS } from './proposals';

const COMPOST = 'para_01jd8x6q1bf5r3v2m9w7k4t0za';
const BEES = 'para_01jd8x6q1bf5r3v2m9w7k4t0zb';
const cap = (n: number) => `cap_01jd8x6q1bf5r3v2m9w7k4t${String(n).padStart(3, '0')}`;

/** The PARA items the fake PARA service knows (a test removes one to play an item gone since). */
const items = new Set([COMPOST, BEES]);
let h: GraphHarness;
let worker: (n: number) => ReturnType<ReturnType<typeof connectService<typeof graphApi>>['as']>;
beforeAll(async () => {
  h = await graphHarness({
    para: items,
    paraLabels: new Map([
      [COMPOST, 'Garden composting'],
      [BEES, 'Beekeeping'],
    ]),
    // The relay publishes when woken only (a started module would wait a minute to poll).
    outboxPollMs: 60_000,
  });
  const client = connectService('ingest-worker', 'graph', graphApi, { kind: 'local', router: h.module.router });
  worker = (n) => client.as(identity(n));
}, HARNESS_TIMEOUT);
afterAll(() => h.database.close());

async function captureNode(tenant: number, captureId: string, title = 'Composting scraps') {
  const { node } = await worker(tenant).captures.upsertNode({
    capture_id: captureId,
    title,
    content: 'Kitchen scraps and garden leaves turn into compost in a few months.',
    summary: '',
    tags: ['compost'],
  });
  return node;
}

describe('source_capture_id', () => {
  it('names the capture on a node it made, null on a hand-made node, and filters the list', async () => {
    const node = await captureNode(1, cap(1));
    expect(node.source_capture_id).toBe(cap(1));
    const hand = await h.as(1).nodes.create({ title: 'By hand' });
    expect(hand.source_capture_id).toBeNull();
    const page = await h.as(1).nodes.list({ source_capture_id: cap(1), page: 1, per_page: 20 });
    expect(page.data.map((n) => n.id)).toEqual([node.id]);
    const keyword = await h.as(1).nodes.list({ query: 'compost', source_capture_id: cap(1), page: 1, per_page: 20 });
    expect(keyword.data.map((n) => n.id)).toEqual([node.id]);
    // Another tenant's capture id matches nothing.
    expect((await h.as(2).nodes.list({ source_capture_id: cap(1), page: 1, per_page: 20 })).total).toBe(0);
  });
});

describe('proposals', () => {
  it('records link proposals above the threshold (not the node itself, not linked ones) and a PARA item', async () => {
    const node = await captureNode(3, cap(2));
    const a = await h.as(3).nodes.create({ title: 'Worm bins' });
    const b = await h.as(3).nodes.create({ title: 'Leaf mould' });
    const linked = await h.as(3).nodes.create({ title: 'Already linked' });
    await h.as(3).links.replace({ id: node.id, links: [{ target_id: linked.id, type: 'related', weight: 1 }] });
    const { proposals } = await worker(3).proposals.record({
      capture_id: cap(2),
      links: [
        { id: node.id, score: 0.99 },
        { id: linked.id, score: 0.9 },
        { id: a.id, score: 0.8 },
        { id: b.id, score: LINK_PROPOSAL_MIN_SCORE - 0.01 },
        { id: 'node_01jd8x6q1bf5r3v2m9w7k4t999', score: 0.7 },
      ],
      link_model: 'test-model',
    });
    expect(proposals.map((p) => [p.kind, p.target_id, p.status])).toEqual([
      ['link', a.id, 'pending'],
      ['para_item', COMPOST, 'pending'],
    ]);
    expect(proposals[0]).toMatchObject({
      node_id: node.id,
      capture_id: cap(2),
      target_title: 'Worm bins',
      score: 0.8,
      model: 'test-model',
      reason: expect.stringContaining('“Worm bins”: cosine similarity 0.80'),
      decided_at: null,
    });
    expect(proposals[1]!.model).toMatch(/ts_rank_cd/);
    expect(proposals[1]!.score).toBeGreaterThanOrEqual(0.3);
    expect(proposals[1]!.reason).toMatch(/shares the words .*compost.* with the project “Garden composting”/);
  });

  it('keeps at most MAX_LINK_PROPOSALS, the most similar', async () => {
    await captureNode(4, cap(3), 'Unrelated title');
    const others = [];
    for (let i = 0; i < MAX_LINK_PROPOSALS + 2; i++) others.push(await h.as(4).nodes.create({ title: `n${i}` }));
    const { proposals } = await worker(4).proposals.record({
      capture_id: cap(3),
      links: others.map((n, i) => ({ id: n.id, score: 0.5 + i / 100 })),
      link_model: 'm',
    });
    const links = proposals.filter((p) => p.kind === 'link');
    expect(links.map((p) => p.target_id).sort()).toEqual(
      others
        .slice(-MAX_LINK_PROPOSALS)
        .map((n) => n.id)
        .sort(),
    );
  });

  it('a reingest replaces pending proposals and never repeats a decided one', async () => {
    const node = await captureNode(5, cap(4));
    const [a, b, c] = [
      await h.as(5).nodes.create({ title: 'A' }),
      await h.as(5).nodes.create({ title: 'B' }),
      await h.as(5).nodes.create({ title: 'C' }),
    ];
    const record = (links: Array<{ id: string; score: number }>) =>
      worker(5).proposals.record({ capture_id: cap(4), links, link_model: 'm' });
    const first = await record([
      { id: a.id, score: 0.9 },
      { id: b.id, score: 0.8 },
    ]);
    const toA = first.proposals.find((p) => p.target_id === a.id)!;
    await h.as(5).proposals.dismiss({ id: node.id, proposal_id: toA.id });
    await record([
      { id: a.id, score: 0.9 },
      { id: c.id, score: 0.7 },
    ]);
    await record([
      { id: a.id, score: 0.9 },
      { id: c.id, score: 0.7 },
    ]);
    const all = (await h.as(5).proposals.list({ id: node.id })).data;
    expect(all.map((p) => [p.target_id, p.status]).sort()).toEqual(
      [
        [a.id, 'dismissed'],
        [c.id, 'pending'],
        [COMPOST, 'pending'],
      ].sort(),
    );
    const pending = (await h.as(5).proposals.list({ id: node.id, status: 'pending' })).data;
    expect(pending).toHaveLength(2);
  });

  it('accepting a link proposal links both ways (related, weight the score); deciding twice is 409', async () => {
    const node = await captureNode(6, cap(5));
    const a = await h.as(6).nodes.create({ title: 'Target' });
    const { proposals } = await worker(6).proposals.record({
      capture_id: cap(5),
      links: [{ id: a.id, score: 0.8765 }],
      link_model: 'm',
    });
    const p = proposals.find((x) => x.kind === 'link')!;
    const decision = await h.as(6).proposals.accept({ id: node.id, proposal_id: p.id });
    expect(decision).toMatchObject({
      proposal: { id: p.id, status: 'accepted', decided_at: expect.any(String) },
      link: { target_id: a.id, type: 'related', weight: 0.88 },
      para_assignment: null,
      created: true,
    });
    expect((await h.as(6).links.related({ id: a.id, limit: 10 })).nodes.map((n) => n.id)).toEqual([node.id]);
    const again = await problemOf(h.as(6).proposals.accept({ id: node.id, proposal_id: p.id }));
    expect(again).toMatchObject({ status: 409, detail: 'The proposal was already accepted' });
    expect(await statusOf(h.as(6).proposals.dismiss({ id: node.id, proposal_id: p.id }))).toBe(409);
  });

  it('accepting a PARA proposal assigns the item as a person would; dismissing changes nothing else', async () => {
    const node = await captureNode(7, cap(6));
    const { proposals } = await worker(7).proposals.record({ capture_id: cap(6), links: [], link_model: 'm' });
    const p = proposals.find((x) => x.kind === 'para_item')!;
    const decision = await h.as(7).proposals.accept({ id: node.id, proposal_id: p.id });
    expect(decision).toMatchObject({
      link: null,
      para_assignment: { para_item_id: COMPOST, state: 'active', assigned_by: 'user' },
      created: true,
    });
    expect((await h.as(7).nodes.get({ id: node.id })).para_item_ids).toEqual([COMPOST]);
    // A node holding a PARA item gets no PARA proposal on the next run.
    const next = await worker(7).proposals.record({ capture_id: cap(6), links: [], link_model: 'm' });
    expect(next.proposals).toEqual([]);

    const other = await captureNode(7, cap(7));
    const q = (await worker(7).proposals.record({ capture_id: cap(7), links: [], link_model: 'm' })).proposals[0]!;
    expect((await h.as(7).proposals.dismiss({ id: other.id, proposal_id: q.id })).status).toBe('dismissed');
    expect((await h.as(7).nodes.get({ id: other.id })).para_item_ids).toEqual([]);
  });

  it('a target deleted since answers 409 and the proposal stays pending', async () => {
    const node = await captureNode(8, cap(8));
    const a = await h.as(8).nodes.create({ title: 'Soon gone' });
    const { proposals } = await worker(8).proposals.record({
      capture_id: cap(8),
      links: [{ id: a.id, score: 0.9 }],
      link_model: 'm',
    });
    const p = proposals.find((x) => x.kind === 'link')!;
    await h.as(8).nodes.delete({ id: a.id });
    const problem = await problemOf(h.as(8).proposals.accept({ id: node.id, proposal_id: p.id }));
    expect(problem).toMatchObject({ status: 409, detail: expect.stringContaining('was deleted since') });
    const listed = (await h.as(8).proposals.list({ id: node.id })).data.find((x) => x.id === p.id)!;
    expect(listed.status).toBe('pending');
    expect((await h.as(8).proposals.dismiss({ id: node.id, proposal_id: p.id })).status).toBe('dismissed');
  });

  it('a PARA item gone since answers 409 on accept, naming it; the proposal stays pending', async () => {
    const node = await captureNode(12, cap(11));
    const { proposals } = await worker(12).proposals.record({ capture_id: cap(11), links: [], link_model: 'm' });
    const p = proposals.find((x) => x.kind === 'para_item')!;
    items.delete(COMPOST);
    try {
      const problem = await problemOf(h.as(12).proposals.accept({ id: node.id, proposal_id: p.id }));
      expect(problem).toMatchObject({
        status: 409,
        detail: expect.stringContaining('is archived or no longer exists'),
      });
    } finally {
      items.add(COMPOST);
    }
    expect((await h.as(12).proposals.list({ id: node.id, status: 'pending' })).data.map((x) => x.id)).toContain(p.id);
    expect((await h.as(12).nodes.get({ id: node.id })).para_item_ids).toEqual([]);
  });

  it('another tenant sees 404 for the node’s proposals, accept and dismiss', async () => {
    const node = await captureNode(9, cap(9));
    const { proposals } = await worker(9).proposals.record({ capture_id: cap(9), links: [], link_model: 'm' });
    const p = proposals[0]!;
    expect(await statusOf(h.as(10).proposals.list({ id: node.id }))).toBe(404);
    expect(await statusOf(h.as(10).proposals.accept({ id: node.id, proposal_id: p.id }))).toBe(404);
    expect(await statusOf(h.as(10).proposals.dismiss({ id: node.id, proposal_id: p.id }))).toBe(404);
    expect(await statusOf(h.as(9).proposals.accept({ id: node.id, proposal_id: 'prop_nope' }))).toBe(404);
    expect((await h.as(9).proposals.list({ id: node.id, status: 'pending' })).data).toHaveLength(1);
  });

  it('records nothing for a node deleted before the stage ran', async () => {
    const node = await captureNode(11, cap(10));
    await h.as(11).nodes.delete({ id: node.id });
    const { proposals } = await worker(11).proposals.record({ capture_id: cap(10), links: [], link_model: 'm' });
    expect(proposals).toEqual([]);
    expect(captureNodeId(cap(10))).toBe(node.id);
  });
});

describe('a PARA item the capture asks for (bookmark import folders)', () => {
  const folder = { category: 'resources' as const, label: 'Databases' };

  it('is found or made and the node assigned to it (by system:import), instead of a PARA proposal', async () => {
    const node = await captureNode(21, cap(21), 'Composting in databases');
    const out = await worker(21).proposals.record({
      capture_id: cap(21),
      links: [],
      link_model: 'm',
      para_item: folder,
    });
    expect(out.para_item).toMatchObject({ label: 'Databases', created: true, assigned: true });
    expect(out.proposals.filter((p) => p.kind === 'para_item')).toEqual([]);
    const got = await h.as(21).nodes.get({ id: node.id });
    expect(got.para_item_ids).toEqual([out.para_item!.id]);
    expect(got.para_assignments).toMatchObject([
      { para_item_id: out.para_item!.id, state: 'active', assigned_by: 'system:import', score: null },
    ]);
  });

  it('a second capture of the folder joins the same item; a re-run changes nothing', async () => {
    await captureNode(22, cap(22));
    await captureNode(22, cap(23));
    const first = await worker(22).proposals.record({
      capture_id: cap(22),
      links: [],
      link_model: 'm',
      para_item: folder,
    });
    const [second, again] = await Promise.all([
      worker(22).proposals.record({ capture_id: cap(23), links: [], link_model: 'm', para_item: folder }),
      worker(22).proposals.record({ capture_id: cap(22), links: [], link_model: 'm', para_item: folder }),
    ]);
    expect(second.para_item).toMatchObject({ id: first.para_item!.id, created: false, assigned: true });
    expect(again.para_item).toMatchObject({ id: first.para_item!.id, created: false, assigned: false });
    const node = await h.as(22).nodes.get({ id: captureNodeId(cap(22)) });
    expect(node.para_assignments).toHaveLength(1);
  });

  it('never moves a node a person has placed: the item is ensured, the assignment left as it is', async () => {
    const node = await captureNode(23, cap(24));
    await h.as(23).nodes.update({ id: node.id, patch: { para_item_ids: [COMPOST] } });
    const out = await worker(23).proposals.record({
      capture_id: cap(24),
      links: [],
      link_model: 'm',
      para_item: folder,
    });
    expect(out.para_item).toMatchObject({ assigned: false });
    expect((await h.as(23).nodes.get({ id: node.id })).para_item_ids).toEqual([COMPOST]);
  });
});

describe('proposal.created in the outbox', () => {
  /** The tenant's proposal events, each checked against the topic's schema and keyed by tenant. */
  async function proposalEvents(t: number) {
    const rows = (await h.outbox(t)).filter((r) => r.topic === TOPICS.graphProposals);
    for (const r of rows) expect(r.key).toBe(identity(t).tenantId);
    return rows.map((r) => ProposalEvent.parse(r.payload));
  }
  const byId = (a: Proposal, b: Proposal) => a.id.localeCompare(b.id);

  it('one event per proposal recorded, carrying the proposal as the API answers it (version 1)', async () => {
    await captureNode(13, cap(12));
    const a = await h.as(13).nodes.create({ title: 'Worm bins' });
    const b = await h.as(13).nodes.create({ title: 'Leaf mould' });
    const { proposals } = await worker(13).proposals.record({
      capture_id: cap(12),
      links: [
        { id: a.id, score: 0.8 },
        { id: b.id, score: 0.6 },
      ],
      link_model: 'test-model',
    });
    expect(proposals.map((p) => p.kind).sort()).toEqual(['link', 'link', 'para_item']);
    const events = await proposalEvents(13);
    expect(events.map((e) => e.data.proposal).sort(byId)).toEqual([...proposals].sort(byId));
    for (const e of events)
      expect(e).toMatchObject({
        id: expect.stringMatching(/^evt_/),
        type: 'proposal.created',
        tenant_id: identity(13).tenantId,
        version: 1,
      });
    expect(new Set(events.map((e) => e.id)).size).toBe(3);
  });

  it('a reingest announces only the proposals it adds, never a decided one again', async () => {
    const node = await captureNode(14, cap(13), 'Unrelated title');
    const a = await h.as(14).nodes.create({ title: 'A' });
    const c = await h.as(14).nodes.create({ title: 'C' });
    const record = (links: Array<{ id: string; score: number }>) =>
      worker(14).proposals.record({ capture_id: cap(13), links, link_model: 'm' });
    const first = await record([{ id: a.id, score: 0.9 }]);
    const toA = first.proposals.find((p) => p.kind === 'link')!;
    const toItem = first.proposals.find((p) => p.kind === 'para_item')!;
    for (const p of [toA, toItem]) await h.as(14).proposals.dismiss({ id: node.id, proposal_id: p.id });
    const second = await record([
      { id: a.id, score: 0.9 },
      { id: c.id, score: 0.7 },
    ]);
    expect(second.proposals.map((p) => p.target_id)).toEqual([c.id]);
    // Nothing left to propose: the pending one goes, none is added, no event.
    await record([]);
    await record([{ id: c.id, score: LINK_PROPOSAL_MIN_SCORE - 0.01 }]);
    const events = await proposalEvents(14);
    expect(events.map((e) => [e.data.proposal.target_id, e.data.proposal.id])).toEqual([
      [a.id, toA.id],
      [COMPOST, toItem.id],
      [c.id, second.proposals[0]!.id],
    ]);
    expect(events.every((e) => e.data.proposal.status === 'pending')).toBe(true);
  });

  it('the events commit with the proposals: an outbox that cannot take them fails the call, recording none', async () => {
    const node = await captureNode(15, cap(14));
    const a = await h.as(15).nodes.create({ title: 'A' });
    await h.database.db.execute(sql`alter table graph.outbox rename to outbox_away`);
    try {
      await expect(
        worker(15).proposals.record({ capture_id: cap(14), links: [{ id: a.id, score: 0.9 }], link_model: 'm' }),
      ).rejects.toThrow();
    } finally {
      await h.database.db.execute(sql`alter table graph.outbox_away rename to outbox`);
    }
    expect((await h.as(15).proposals.list({ id: node.id })).data).toEqual([]);
    expect(await proposalEvents(15)).toEqual([]);
  });

  it('wakes the outbox relay: the events reach the bus without waiting for its poll', async () => {
    await captureNode(16, cap(15));
    const seen: ProposalEvent[] = [];
    await h.bus.subscribe({
      topic: TOPICS.graphProposals,
      group: 'test-proposals',
      handler: async (e) => void seen.push(e),
    });
    await h.module.start();
    try {
      const { proposals } = await worker(16).proposals.record({ capture_id: cap(15), links: [], link_model: 'm' });
      expect(proposals).toHaveLength(1);
      await vi.waitFor(() => expect(seen.map((e) => e.data.proposal.id)).toContain(proposals[0]!.id), {
        timeout: 20_000,
        interval: 50,
      });
    } finally {
      await h.module.stop();
    }
  });
});
