import { afterAll, describe, expect, it } from 'vitest';
import { api, newTenant } from '../e2e/support/client';
import { control, eventually, identityOf, searchAs } from './support/cluster-api';

/** Writes nodes one after another until told to stop; records what the gateway acknowledged. */
function writer(auth: string, tag: string) {
  const acknowledged: string[] = [];
  const failed: number[] = [];
  let running = true;
  const done = (async () => {
    for (let i = 0; running && i < 2000; i++) {
      const res = await api<{ id: string }>('POST', '/nodes', { auth, body: { title: `${tag} ${i}` } });
      if (res.status === 201) acknowledged.push(res.body.id);
      else failed.push(res.status);
    }
  })();
  return {
    acknowledged,
    failed,
    stop: async () => {
      running = false;
      await done;
    },
  };
}

describe('restarts under load', () => {
  afterAll(() => control('start', 'graph'));

  it('killing the graph service mid-run loses no acknowledged write', async () => {
    const s = await newTenant('kill');
    const w = writer(s.bearer, 'kill');
    await eventually(async () => w.acknowledged.length >= 20, 30_000, 50);
    await control('stop', 'graph', { signal: 'SIGKILL' });
    await new Promise((r) => setTimeout(r, 1000));
    await control('start', 'graph');
    await eventually(async () => w.acknowledged.length >= 60, 60_000, 100);
    await w.stop();
    expect(w.failed.every((status) => status === 503)).toBe(true);
    for (const id of w.acknowledged) expect((await api('GET', `/nodes/${id}`, { auth: s.bearer })).status).toBe(200);
  }, 180_000);

  it('SIGTERM mid-load: in-flight requests finish, no acknowledged write or event is lost', async () => {
    const s = await newTenant('sigterm');
    const search = searchAs(identityOf(s.access_token));
    const w = writer(s.bearer, 'term');
    await eventually(async () => w.acknowledged.length >= 20, 30_000, 50);
    await control('stop', 'graph', { signal: 'SIGTERM' });
    await control('start', 'graph');
    await eventually(async () => w.acknowledged.length >= 60, 60_000, 100);
    await w.stop();
    expect(w.failed.every((status) => status === 503)).toBe(true);
    for (const id of w.acknowledged) expect((await api('GET', `/nodes/${id}`, { auth: s.bearer })).status).toBe(200);
    // In-flight requests finished before graph exited: no write answered 503 was stored. (A graph
    // that outlives its shutdown grace, still serving its callers' kept-alive connections, is
    // killed mid-write: the gateway answers 503 for a node that exists, one more than acknowledged.)
    const stored = await api<{ total: number }>('GET', '/nodes?per_page=1', { auth: s.bearer });
    expect(stored.body.total).toBe(w.acknowledged.length);
    await eventually(async () => (await search.documents.count({})).count === w.acknowledged.length, 60_000, 500);
  }, 180_000);
});
