import { beforeAll, describe, expect, it } from 'vitest';
import { Node, ParaJob, type ParaItem } from '@kg/contracts';
import { api, conforms, createNode, expectProblem, newTenant, type Session } from './support/client';

let s: Session;
let other: Session;
beforeAll(async () => {
  [s, other] = await Promise.all([newTenant('para-jobs'), newTenant('para-jobs-other')]);
});

const item = async (auth: string, body: Record<string, unknown>) => {
  const res = await api<ParaItem>('POST', '/para', { auth, body });
  expect(res.status).toBe(201);
  return res.body;
};
const node = async (auth: string, id: string) => conforms(Node, (await api('GET', `/nodes/${id}`, { auth })).body);

/** Polls a job until it is finished (jobs of one tenant run in the order they were queued). */
async function finished(auth: string, id: string): Promise<ParaJob> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const job = conforms(ParaJob, (await api('GET', `/para/jobs/${id}`, { auth })).body);
    if (job.status === 'done' || job.status === 'failed' || Date.now() > deadline) return job;
    await new Promise((r) => setTimeout(r, 100));
  }
}
const match = async (auth: string, id: string) => {
  const res = await api<ParaJob>('POST', `/para/${id}/match`, { auth });
  expect(res.status, JSON.stringify(res.body)).toBe(202);
  return conforms(ParaJob, res.body);
};

describe('background reclassification', () => {
  it('creating an item assigns a clearly matching orphan, leaves an unrelated one and a person’s node alone', async () => {
    const t = await newTenant('para-reclass');
    const area = await item(t.bearer, { category: 'areas', label: 'Kitchen' });
    const matching = await createNode(t.bearer, {
      title: 'Sourdough starter feeding',
      content: 'Feed the sourdough starter with flour and water every morning.',
    });
    const unrelated = await createNode(t.bearer, { title: 'Quarterly tax return', content: 'Due in April.' });
    const persons = await createNode(t.bearer, { title: 'Sourdough bread recipe', para_item_ids: [area.id] });

    const bread = await item(t.bearer, {
      category: 'resources',
      label: 'Sourdough baking',
      description: 'Bread, starter, flour',
    });
    // Jobs of a tenant run in order: once this match has finished, the creation's job has too.
    const after = await finished(t.bearer, (await match(t.bearer, bread.id)).id);
    expect(after).toMatchObject({ status: 'done', para_item_id: bread.id, kind: 'match', assigned: 0 });

    const assigned = await node(t.bearer, matching.id);
    expect(assigned.para_item_ids).toEqual([bread.id]);
    expect(assigned.para_assignments).toEqual([
      {
        para_item_id: bread.id,
        state: 'active',
        assigned_by: 'system:reclassify',
        score: expect.any(Number),
        assigned_at: expect.any(String),
      },
    ]);
    expect(assigned.para_assignments[0]!.score).toBeGreaterThanOrEqual(0.3);
    expect((await node(t.bearer, unrelated.id)).para_item_ids).toEqual([]);
    expect((await node(t.bearer, persons.id)).para_assignments).toMatchObject([
      { para_item_id: area.id, assigned_by: 'user' },
    ]);
    const orphans = await api<{ data: Array<{ id: string }> }>('GET', '/nodes?orphan=true', { auth: t.bearer });
    expect(orphans.body.data.map((n) => n.id)).toEqual([unrelated.id]);
  });

  it('match assigns orphans that arrived after the item, and reports its progress', async () => {
    const t = await newTenant('para-match');
    const marathon = await item(t.bearer, { category: 'projects', label: 'Marathon training' });
    expect((await finished(t.bearer, (await match(t.bearer, marathon.id)).id)).assigned).toBe(0);
    const run = await createNode(t.bearer, { title: 'Marathon training plan', content: 'Long runs on Sundays.' });
    await createNode(t.bearer, { title: 'Garden shed', content: 'Paint it green.' });

    const started = await match(t.bearer, marathon.id);
    expect(started).toMatchObject({ kind: 'match', para_item_id: marathon.id, queued: 2, finished_at: null });
    const job = await finished(t.bearer, started.id);
    expect(job).toMatchObject({ status: 'done', queued: 2, done: 2, assigned: 1, finished_at: expect.any(String) });
    expect((await node(t.bearer, run.id)).para_item_ids).toEqual([marathon.id]);
  });

  it('match answers 404 for unknown and other tenants’ items and 409 for archived or completed ones', async () => {
    const mine = await item(s.bearer, { category: 'projects', label: 'Old' });
    expectProblem(await api('POST', `/para/${mine.id}/match`, { auth: other.bearer }), 404);
    expectProblem(await api('POST', '/para/para_01jd8x6q1bf5r3v2m9w7k4t0za/match', { auth: s.bearer }), 404);
    await api('POST', `/para/${mine.id}/complete`, { auth: s.bearer });
    expectProblem(await api('POST', `/para/${mine.id}/match`, { auth: s.bearer }), 409);
    await api('POST', `/para/${mine.id}/archive`, { auth: s.bearer });
    expectProblem(await api('POST', `/para/${mine.id}/match`, { auth: s.bearer }), 409);
  });

  it('rescan queues every orphan, then answers 429 with Retry-After for 5 minutes, per tenant', async () => {
    const t = await newTenant('para-rescan');
    await item(t.bearer, { category: 'areas', label: 'Astronomy' });
    const star = await createNode(t.bearer, { title: 'Astronomy night', content: 'Telescope and stars.' });
    await createNode(t.bearer, { title: 'Invoice 42' });
    const first = await api<{ queued: number; job_id: string }>('POST', '/para/rescan', { auth: t.bearer });
    expect(first.status).toBe(202);
    expect(first.body).toEqual({ queued: expect.any(Number), job_id: expect.stringMatching(/^job_/) });
    expect(first.body.queued).toBeGreaterThanOrEqual(1);
    const job = await finished(t.bearer, first.body.job_id);
    expect(job).toMatchObject({ kind: 'rescan', para_item_id: null, status: 'done' });
    expect((await node(t.bearer, star.id)).para_item_ids).toHaveLength(1);

    const again = await api('POST', '/para/rescan', { auth: t.bearer });
    expectProblem(again, 429);
    const retryAfter = Number(again.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(200);
    expect(retryAfter).toBeLessThanOrEqual(300);
    expect(again.headers.get('ratelimit-limit')).toBe('1');
    expect(again.headers.get('ratelimit-remaining')).toBe('0');

    expect((await api('POST', '/para/rescan', { auth: other.bearer })).status).toBe(202);
  });

  it('a job is visible to its tenant only; unknown and malformed job ids are 404', async () => {
    const mine = await item(s.bearer, { category: 'resources', label: 'Mine' });
    const job = await match(s.bearer, mine.id);
    expect((await api('GET', `/para/jobs/${job.id}`, { auth: s.bearer })).status).toBe(200);
    for (const [auth, id] of [
      [other.bearer, job.id],
      [s.bearer, 'job_01jd8x6q1bf5r3v2m9w7k4t0za'],
      [s.bearer, 'nope'],
    ] as const) {
      expectProblem(await api('GET', `/para/jobs/${id}`, { auth }), 404);
    }
  });
});
