import { afterAll, describe, expect, it } from 'vitest';
import type { Capture } from '@kg/contracts';
import { api, newTenant } from '../e2e/support/client';
import { control, eventually } from './support/cluster-api';

const ROUNDS = 10;
const PER_ROUND = 20;

type Page<T> = { data: T[]; total: number };
const count = async (auth: string, status: string) =>
  (await api<Page<Capture>>('GET', `/captures?status=${status}&per_page=1`, { auth })).body.total;

/** Creates `n` note captures, 8 requests at a time. */
async function notes(auth: string, round: number, n: number): Promise<string[]> {
  const ids: string[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (next < n) {
        const i = next++;
        const res = await api<Capture>('POST', '/captures', {
          auth,
          body: {
            title: `Field note ${round}-${i}`,
            content_type: 'note',
            source: 'cli',
            raw_content: `Observation ${round}-${i}: the heron fished at dawn near the reeds. The water was calm and cold.`,
          },
        });
        expect(res.status).toBe(201);
        ids.push(res.body.id);
      }
    }),
  );
  return ids;
}

describe('ingest worker faults (distributed)', () => {
  afterAll(() => control('start', 'ingest-worker'));

  it(`kill -9 of the worker mid-stage ${ROUNDS} times in a batch of ${ROUNDS * PER_ROUND} captures: all end processed, each with one node`, async () => {
    const s = await newTenant('ingest-faults');
    const ids: string[] = [];
    let killedMidStage = 0;
    for (let round = 1; round <= ROUNDS; round++) {
      ids.push(...(await notes(s.bearer, round, PER_ROUND)));
      // Wait until the worker holds a capture (status processing), then kill it without warning.
      const busy = await eventually(async () => (await count(s.bearer, 'processing')) > 0, 60_000, 20).catch(
        () => false,
      );
      await control('stop', 'ingest-worker', { signal: 'SIGKILL' });
      if (busy) killedMidStage++;
      await control('start', 'ingest-worker');
    }
    expect(killedMidStage).toBeGreaterThanOrEqual(ROUNDS - 1);

    await eventually(async () => (await count(s.bearer, 'processed')) === ids.length, 300_000, 1000);
    expect(await count(s.bearer, 'failed')).toBe(0);

    // None twice: one node per capture, the capture's own, and no other node in the tenant.
    const nodeIds = new Set<string>();
    for (let page = 1; page <= Math.ceil(ids.length / 100); page++) {
      const list = (await api<Page<Capture>>('GET', `/captures?per_page=100&page=${page}`, { auth: s.bearer })).body;
      for (const c of list.data) {
        expect(c.status).toBe('processed');
        expect(c.node_ids, c.id).toHaveLength(1);
        nodeIds.add(c.node_ids[0]!);
      }
    }
    expect(nodeIds.size).toBe(ids.length);
    expect((await api<{ total: number }>('GET', '/nodes?per_page=1', { auth: s.bearer })).body.total).toBe(ids.length);

    // The kills did interrupt runs: some captures were re-queued by the sweeper and resumed.
    let requeued = 0;
    for (const id of ids) {
      const activity = (await api<{ data: { kind: string }[] }>('GET', `/captures/${id}/activity`, { auth: s.bearer }))
        .body;
      if (activity.data.some((a) => a.kind === 'requeued')) requeued++;
      expect(activity.data.filter((a) => a.kind === 'processed')).toHaveLength(1);
    }
    expect(requeued).toBeGreaterThan(0);
  }, 600_000);
});
