import { beforeAll, describe, expect, it } from 'vitest';
import {
  Capture,
  CaptureActivityList,
  CaptureProvenance,
  Node,
  ParaJob,
  ProposalDecision,
  ProposalList,
} from '@kg/contracts';
import { api, conforms, createNode, expectProblem, newTenant, type Session } from './support/client';
import { waitIndexed } from './support/search';

/**
 * Stage 4's provenance (`source_capture_id`) and stage 5's proposals, end to end through the
 * public API in whichever mode the suite runs: a capture's node names its capture, and the
 * worker proposes links to similar nodes and a PARA item, which a person accepts or dismisses.
 */
let s: Session;
let other: Session;
let similar: { id: string };
let itemId: string;

const FLASHCARDS =
  'Flashcards reviewed at growing intervals help you remember vocabulary for years. ' +
  'Spaced repetition beats cramming the night before.';

async function capture(title: string, raw_content: string): Promise<Capture> {
  const res = await api<Capture>('POST', '/captures', {
    auth: s.bearer,
    body: { title, content_type: 'note', source: 'api', raw_content },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

async function settled(id: string, timeoutMs = 45_000): Promise<Capture> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const c = conforms(Capture, (await api('GET', `/captures/${id}`, { auth: s.bearer })).body);
    if (c.status !== 'pending' && c.status !== 'processing') return c;
    if (Date.now() > deadline) throw new Error(`capture ${id} still ${c.status}`);
    await new Promise((r) => setTimeout(r, 150));
  }
}

const proposals = async (nodeId: string, query = '', auth = s.bearer) =>
  api('GET', `/nodes/${nodeId}/proposals${query}`, { auth });
const decide = (nodeId: string, id: string, action: 'accept' | 'dismiss', auth = s.bearer) =>
  api('POST', `/nodes/${nodeId}/proposals/${id}/${action}`, { auth });

beforeAll(async () => {
  [s, other] = await Promise.all([newTenant('proposals'), newTenant('proposals-other')]);
  const item = await api<{ id: string }>('POST', '/para', {
    auth: s.bearer,
    body: {
      category: 'projects',
      label: 'Vocabulary flashcards',
      description: 'Learning words with spaced repetition',
    },
  });
  expect(item.status).toBe(201);
  itemId = item.body.id;
  // Jobs of a tenant run in order: once this match has finished, the creation's job has too, so
  // no reclassification assigns the capture's node before the worker proposes an item for it.
  const job = await api<ParaJob>('POST', `/para/${itemId}/match`, { auth: s.bearer });
  for (const deadline = Date.now() + 30_000; ;) {
    const j = conforms(ParaJob, (await api('GET', `/para/jobs/${job.body.id}`, { auth: s.bearer })).body);
    if (j.status === 'done' || j.status === 'failed') break;
    if (Date.now() > deadline) throw new Error('PARA job not finished');
    await new Promise((r) => setTimeout(r, 100));
  }
  similar = await createNode(s.bearer, {
    title: 'Spaced repetition',
    content: 'Review flashcards at growing intervals so that memories last; cramming fades fast.',
  });
  await createNode(s.bearer, { title: 'Sourdough starter', content: 'Feed the starter flour and water daily.' });
  await waitIndexed(s.bearer, similar.id, 'reviewing flashcards at increasing intervals');
});

describe('a capture’s node and its proposals', () => {
  let cap: Capture;
  let nodeId: string;

  it('names its capture (source_capture_id), filterable on GET /nodes in every mode', async () => {
    cap = await capture('Remembering vocabulary', FLASHCARDS);
    const done = await settled(cap.id);
    expect(done.status, done.error ?? '').toBe('processed');
    nodeId = done.node_ids[0]!;
    const node = conforms(Node, (await api('GET', `/nodes/${nodeId}`, { auth: s.bearer })).body);
    expect(node.source_capture_id).toBe(cap.id);
    expect(conforms(Node, similar).source_capture_id).toBeNull();
    const list = await api('GET', `/nodes?source_capture_id=${cap.id}`, { auth: s.bearer });
    expect(list.body).toMatchObject({ total: 1, data: [{ id: nodeId, source_capture_id: cap.id }] });
    const keyword = await api('GET', `/nodes?mode=keyword&query=vocabulary&source_capture_id=${cap.id}`, {
      auth: s.bearer,
    });
    expect(keyword.body.data.map((n: Node) => n.id)).toEqual([nodeId]);
    expect((await api('GET', `/nodes?source_capture_id=${cap.id}`, { auth: other.bearer })).body.total).toBe(0);
    const empty = await api('GET', '/nodes?source_capture_id=', { auth: s.bearer });
    expect(expectProblem(empty, 400).errors?.[0]?.path).toBe('query.source_capture_id');

    // Semantic and hybrid: the vector payload holds source_capture_id, so both filter to the capture's node.
    const query = encodeURIComponent('flashcards reviewed at growing intervals');
    await waitIndexed(s.bearer, nodeId, 'flashcards reviewed at growing intervals', `&source_capture_id=${cap.id}`);
    const ids = async (path: string, auth = s.bearer) => {
      const res = await api<{ data: Node[]; total: number }>('GET', path, { auth });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return res.body.data.map((n) => n.id);
    };
    for (const mode of ['semantic', 'hybrid']) {
      // Unfiltered, the hand-made node on the same subject is an answer too.
      expect(await ids(`/nodes?mode=${mode}&query=${query}`)).toEqual(expect.arrayContaining([nodeId, similar.id]));
      expect(await ids(`/nodes?mode=${mode}&query=${query}&source_capture_id=${cap.id}`)).toEqual([nodeId]);
      expect(await ids(`/nodes?mode=${mode}&query=${query}&source_capture_id=${cap.id}`, other.bearer)).toEqual([]);
    }
    expect(await ids(`/nodes?query=${query}&source_capture_id=cap_01jd8x6q1bf5r3v2m9w7k4t0za`)).toEqual([]);
  });

  it('records a propose stage and lists machine-made proposals with score, model and reason', async () => {
    const run = conforms(
      CaptureProvenance,
      (await api('GET', `/captures/${cap.id}/provenance`, { auth: s.bearer })).body,
    ).runs[0]!;
    const stage = run.stages.find((st) => st.name === 'propose')!;
    expect(stage.model).toMatch(/^propose@1 \(links: search suggestions, .+ cosine; PARA item: keyword ts_rank_cd\)$/);
    expect(stage.input_digest).toMatch(/^sha256:[0-9a-f]{64}$/);
    const activity = conforms(
      CaptureActivityList,
      (await api('GET', `/captures/${cap.id}/activity`, { auth: s.bearer })).body,
    ).data;
    const line = activity.find((a) => a.kind === 'stage_completed' && a.detail['stage'] === 'propose')!;
    expect(line.detail['proposals']).toBe((stage.output['proposals'] as unknown[]).length);

    const res = await proposals(nodeId);
    expect(res.status).toBe(200);
    const { data } = conforms(ProposalList, res.body);
    const link = data.find((p) => p.kind === 'link')!;
    expect(link).toMatchObject({
      node_id: nodeId,
      capture_id: cap.id,
      target_id: similar.id,
      target_title: 'Spaced repetition',
      status: 'pending',
      decided_at: null,
      reason: expect.stringContaining('Similar in meaning to “Spaced repetition”'),
    });
    expect(link.score).toBeGreaterThanOrEqual(0.45);
    expect(link.model.length).toBeGreaterThan(0);
    expect(data.filter((p) => p.kind === 'link').map((p) => p.target_id)).not.toContain(nodeId);
    const para = data.find((p) => p.kind === 'para_item')!;
    expect(para).toMatchObject({ target_id: itemId, target_title: 'Vocabulary flashcards', status: 'pending' });
    expect(para.reason).toMatch(/shares the words .*with the project “Vocabulary flashcards”/);
    expect((await proposals(nodeId, '?status=accepted')).body).toEqual({ data: [] });
    expect(expectProblem(await proposals(nodeId, '?status=maybe'), 400).errors?.[0]?.path).toBe('query.status');
  });

  it('accepts a link (related, weight the score) and dismisses the PARA item; deciding twice is 409', async () => {
    const { data } = conforms(ProposalList, (await proposals(nodeId)).body);
    const link = data.find((p) => p.kind === 'link' && p.target_id === similar.id)!;
    const para = data.find((p) => p.kind === 'para_item')!;
    const accepted = await decide(nodeId, link.id, 'accept');
    expect(accepted.status).toBe(200);
    expect(conforms(ProposalDecision, accepted.body)).toMatchObject({
      proposal: { id: link.id, status: 'accepted' },
      link: { target_id: similar.id, type: 'related', weight: Math.round(link.score * 100) / 100 },
      para_assignment: null,
      created: true,
    });
    const related = await api('GET', `/nodes/${similar.id}/related?limit=10`, { auth: s.bearer });
    expect(related.body.nodes).toEqual([expect.objectContaining({ id: nodeId, relationship_type: 'related' })]);
    expect(expectProblem(await decide(nodeId, link.id, 'accept'), 409).detail).toBe(
      'The proposal was already accepted',
    );
    expect((await decide(nodeId, link.id, 'dismiss')).status).toBe(409);

    const dismissed = await decide(nodeId, para.id, 'dismiss');
    expect(dismissed.status).toBe(200);
    expect(dismissed.body).toMatchObject({ id: para.id, status: 'dismissed', decided_at: expect.any(String) });
    expect((await api('GET', `/nodes/${nodeId}`, { auth: s.bearer })).body.para_item_ids).toEqual([]);
    expect((await decide(nodeId, para.id, 'accept')).status).toBe(409);
  });

  it('another tenant gets 404 for the node’s proposals and decisions', async () => {
    const { data } = conforms(ProposalList, (await proposals(nodeId)).body);
    expect((await proposals(nodeId, '', other.bearer)).status).toBe(404);
    expect((await decide(nodeId, data[0]!.id, 'accept', other.bearer)).status).toBe(404);
    expect((await decide(nodeId, data[0]!.id, 'dismiss', other.bearer)).status).toBe(404);
    expect((await decide(nodeId, 'prop_01jd8x6q1bf5r3v2m9w7k4t0za', 'accept')).status).toBe(404);
  });

  it('a reingest keeps one node and does not duplicate proposals; decided ones stay decided', async () => {
    const before = conforms(ProposalList, (await proposals(nodeId)).body).data;
    expect((await api('POST', `/captures/${cap.id}/reingest`, { auth: s.bearer })).status).toBe(200);
    const again = await settled(cap.id);
    expect(again.node_ids).toEqual([nodeId]);
    expect((await api('GET', `/nodes?source_capture_id=${cap.id}`, { auth: s.bearer })).body.total).toBe(1);
    const after = conforms(ProposalList, (await proposals(nodeId)).body).data;
    const keys = after.map((p) => `${p.kind}:${p.target_id}`);
    expect(new Set(keys).size).toBe(keys.length);
    for (const p of before.filter((x) => x.status !== 'pending'))
      expect(after.find((x) => x.id === p.id)).toMatchObject({ status: p.status });
    // The accepted link is not proposed again (the node holds it), nor the dismissed item.
    expect(after.filter((p) => p.status === 'pending').map((p) => p.target_id)).not.toContain(similar.id);
    expect(after.filter((p) => p.status === 'pending').map((p) => p.target_id)).not.toContain(itemId);
  });

  it('deleting the capture keeps the node and its source_capture_id; the capture answers 404', async () => {
    expect((await api('DELETE', `/captures/${cap.id}`, { auth: s.bearer })).status).toBe(204);
    expect((await api('GET', `/captures/${cap.id}`, { auth: s.bearer })).status).toBe(404);
    const node = conforms(Node, (await api('GET', `/nodes/${nodeId}`, { auth: s.bearer })).body);
    expect(node.source_capture_id).toBe(cap.id);
    expect((await api('GET', `/nodes?source_capture_id=${cap.id}`, { auth: s.bearer })).body.total).toBe(1);
    expect((await proposals(nodeId)).status).toBe(200);
  });

  it('accepting a link whose target was deleted since answers 409 and leaves it pending', async () => {
    const c2 = await capture('Vocabulary drills', `${FLASHCARDS} Short daily sessions work best.`);
    const done = await settled(c2.id);
    expect(done.status, done.error ?? '').toBe('processed');
    const node2 = done.node_ids[0]!;
    const link = conforms(ProposalList, (await proposals(node2)).body).data.find((p) => p.target_id === similar.id)!;
    expect(link.status).toBe('pending');
    expect((await api('DELETE', `/nodes/${similar.id}`, { auth: s.bearer })).status).toBe(204);
    const res = await decide(node2, link.id, 'accept');
    expect(expectProblem(res, 409).detail).toContain('was deleted since');
    const listed = conforms(ProposalList, (await proposals(node2, '?status=pending')).body).data;
    expect(listed.map((p) => p.id)).toContain(link.id);
    expect((await decide(node2, link.id, 'dismiss')).status).toBe(200);
  });
});
