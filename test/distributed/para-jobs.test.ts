import { afterAll, describe, expect, it } from 'vitest';
import type { ParaJob } from '@kg/contracts';
import { api, newTenant } from '../e2e/support/client';
import { control, eventually } from './support/cluster-api';

/** Creates `n` orphan nodes, `concurrency` requests at a time. */
async function orphans(auth: string, n: number, title: (i: number) => string, concurrency = 8): Promise<string[]> {
  const ids: string[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < n) {
        const i = next++;
        const res = await api<{ id: string }>('POST', '/nodes', { auth, body: { title: title(i), content: 'notes' } });
        expect(res.status).toBe(201);
        ids.push(res.body.id);
      }
    }),
  );
  return ids;
}

const job = async (auth: string, id: string) => (await api<ParaJob>('GET', `/para/jobs/${id}`, { auth })).body;

describe('reclassification across processes', () => {
  afterAll(() => control('start', 'para'));

  it('a job started through the gateway runs in the PARA process over Kafka and assigns through graph', async () => {
    const s = await newTenant('dist-match');
    const [match] = await orphans(s.bearer, 1, () => 'Telescope mirror grinding');
    const [other] = await orphans(s.bearer, 1, () => 'Invoice for March');
    const item = (await api('POST', '/para', { auth: s.bearer, body: { category: 'projects', label: 'Telescope' } }))
      .body as { id: string };
    const started = await api<ParaJob>('POST', `/para/${item.id}/match`, { auth: s.bearer });
    expect(started.status).toBe(202);
    await eventually(async () => (await job(s.bearer, started.body.id)).status === 'done', 60_000, 200);
    const node = (await api('GET', `/nodes/${match}`, { auth: s.bearer })).body;
    expect(node.para_item_ids).toEqual([item.id]);
    expect(node.para_assignments[0]).toMatchObject({ assigned_by: 'system:reclassify' });
    expect((await api('GET', `/nodes/${other}`, { auth: s.bearer })).body.para_item_ids).toEqual([]);
  }, 120_000);

  it('a job interrupted by killing the PARA service finishes after restart, assigning every node once', async () => {
    const s = await newTenant('dist-kill');
    const ids = await orphans(s.bearer, 2400, (i) => `Beekeeping log ${i}`);
    const item = (await api('POST', '/para', { auth: s.bearer, body: { category: 'areas', label: 'Beekeeping' } }))
      .body as { id: string };
    // The item's own job runs first; follow the match queued behind it, and kill PARA while it runs.
    const started = await api<ParaJob>('POST', `/para/${item.id}/match`, { auth: s.bearer });
    expect(started.status).toBe(202);
    await eventually(
      async () => {
        const assigned = await api<{ total: number }>('GET', `/nodes?para_item_id=${item.id}&per_page=1`, {
          auth: s.bearer,
        });
        return assigned.body.total > 0;
      },
      60_000,
      20,
    );
    await control('stop', 'para', { signal: 'SIGKILL' });
    const midway = await api<{ total: number }>('GET', `/nodes?para_item_id=${item.id}&per_page=1`, {
      auth: s.bearer,
    });
    expect(midway.body.total).toBeLessThan(ids.length);
    await control('start', 'para');
    await eventually(async () => (await job(s.bearer, started.body.id)).status === 'done', 150_000, 500);
    const total = await api<{ total: number }>('GET', `/nodes?para_item_id=${item.id}&per_page=1`, { auth: s.bearer });
    expect(total.body.total).toBe(ids.length);
    expect((await api<{ total: number }>('GET', '/nodes?orphan=true&per_page=1', { auth: s.bearer })).body.total).toBe(
      0,
    );
    const sample = (await api('GET', `/nodes/${ids[0]}`, { auth: s.bearer })).body;
    expect(sample.para_assignments).toHaveLength(1);
  }, 400_000);
});
