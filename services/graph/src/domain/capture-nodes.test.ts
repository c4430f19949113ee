import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { graphApi, NodeEvent } from '@kg/contracts';
import { connectService } from '@kg/trpc';
import { HARNESS_TIMEOUT, graphHarness, identity, statusOf, type GraphHarness } from '../testing';
import { captureNodeId } from './capture-nodes';

const CAPTURE = 'cap_01jd8x6q1bf5r3v2m9w7k4t0za';
const OTHER_CAPTURE = 'cap_01jd8x6q1bf5r3v2m9w7k4t0zb';

let h: GraphHarness;
let worker: (n: number) => ReturnType<ReturnType<typeof connectService<typeof graphApi>>['as']>;
beforeAll(async () => {
  h = await graphHarness({ para: new Set() });
  const client = connectService('ingest-worker', 'graph', graphApi, { kind: 'local', router: h.module.router });
  worker = (n) => client.as(identity(n));
}, HARNESS_TIMEOUT);
afterAll(() => h.database.close());

const input = (over: Partial<Parameters<ReturnType<typeof worker>['captures']['upsertNode']>[0]> = {}) => ({
  capture_id: CAPTURE,
  title: 'Composting',
  content: '# Composting\n\nScraps to soil.',
  summary: 'Scraps to soil.',
  tags: ['compost', 'soil'],
  ...over,
});

describe('captures.upsertNode', () => {
  it('creates the capture’s node as raw, with the id derived from the capture', async () => {
    const { node, created } = await worker(10).captures.upsertNode(input());
    expect(created).toBe(true);
    expect(node).toMatchObject({
      id: 'node_01jd8x6q1bf5r3v2m9w7k4t0za',
      title: 'Composting',
      body_markdown: '# Composting\n\nScraps to soil.',
      summary: 'Scraps to soil.',
      tags: ['compost', 'soil'],
      status: 'raw',
      para_item_ids: [],
    });
    expect(captureNodeId(CAPTURE)).toBe(node.id);
    expect(await h.as(10).nodes.get({ id: node.id })).toEqual(node);
  });

  it('a re-run replaces the node instead of adding one, keeping what a person decided', async () => {
    await h.as(10).nodes.update({ id: captureNodeId(CAPTURE), patch: { status: 'validated' } });
    const again = await worker(10).captures.upsertNode(input({ title: 'Composting, revised', tags: ['compost'] }));
    expect(again.created).toBe(false);
    expect(again.node).toMatchObject({ title: 'Composting, revised', tags: ['compost'], status: 'validated' });
    const page = await h.as(10).nodes.list({ page: 1, per_page: 100 });
    expect(page.total).toBe(1);
    const events = (await h.outbox(10)).map((r) => (r.payload as { type: string }).type);
    expect(events).toEqual(['node.created', 'node.updated', 'node.updated']);
  });

  it('concurrent deliveries of one capture still make one node', async () => {
    const results = await Promise.all(
      Array.from({ length: 5 }, () => worker(11).captures.upsertNode(input({ capture_id: OTHER_CAPTURE }))),
    );
    expect(results.filter((r) => r.created)).toHaveLength(1);
    expect((await h.as(11).nodes.list({ page: 1, per_page: 100 })).total).toBe(1);
  });

  it('is per tenant, and callable by the ingest worker only', async () => {
    // Another tenant's capture id cannot collide (capture ids are global), and its node is invisible here.
    expect(await statusOf(h.as(12).nodes.get({ id: captureNodeId(CAPTURE) }))).toBe(404);
    expect(await statusOf(h.as(10).captures.upsertNode(input()))).toBe(403);
  });

  it('node events carry source_capture_id, and keyword search filters on it', async () => {
    const capture = 'cap_01jd8x6q1bf5r3v2m9w7k4t0zc';
    const { node } = await worker(13).captures.upsertNode(input({ capture_id: capture }));
    const byHand = await h.as(13).nodes.create({ title: 'Composting by hand', summary: 'Scraps to soil.' });
    const snapshots = (await h.outbox(13))
      .map((r) => NodeEvent.parse(r.payload))
      .map((e) => ('node' in e.data ? e.data.node : null));
    expect(snapshots.map((n) => [n?.id, n?.source_capture_id])).toEqual([
      [node.id, capture],
      [byHand.id, null],
    ]);
    const keyword = (filters: { source_capture_id?: string }) =>
      h.as(13).search.keyword({ query: 'composting soil', limit: 10, filters });
    expect((await keyword({})).hits.map((hit) => hit.id).sort()).toEqual([node.id, byHand.id].sort());
    expect((await keyword({ source_capture_id: capture })).hits.map((hit) => hit.id)).toEqual([node.id]);
    expect((await keyword({ source_capture_id: CAPTURE })).hits).toEqual([]);
  });
});
