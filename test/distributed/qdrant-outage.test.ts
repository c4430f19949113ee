import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { api, createNode, newTenant, type Session } from '../e2e/support/client';
import { control, eventually, identityOf } from './support/cluster-api';
import { qdrantPoints, readyz, searchAt } from './support/vectors';

const DOWN_MS = 60_000;
/** Nodes written while Qdrant is down: two tenants (each within its graph write limit), 250 each. */
const PER_TENANT = 250;
const WORDS = {
  verbs: [
    'repairing',
    'painting',
    'cleaning',
    'measuring',
    'planting',
    'cooking',
    'tuning',
    'sorting',
    'packing',
    'drawing',
  ],
  things: ['a wooden fence', 'the kitchen sink', 'an old violin', 'tomato seedlings', 'a mountain bike'],
  places: ['in the garden', 'at the harbour', 'in the attic', 'at the library', 'on the balcony'],
};
/** 250 distinct titles made of words (a title alone, searched by meaning, finds its node). */
const title = (i: number) =>
  `${WORDS.verbs[i % 10]} ${WORDS.things[Math.floor(i / 10) % 5]} ${WORDS.places[Math.floor(i / 50) % 5]}`;

type Probe = {
  mode: string;
  status: number;
  type: string | null;
  retryAfter: string | null;
  fallback: unknown;
  header: string | null;
};

/**
 * The cluster's Qdrant (scripts/infra/qdrant.sh, shared by the search service) killed with
 * SIGKILL and kept down 60 s while 500 nodes are written through the public API, then started
 * again on its storage; afterwards stopped cleanly and started again. Test files run one at a
 * time, so no other test sees the outage; afterAll leaves Qdrant running.
 */
describe('Qdrant killed under load (distributed)', () => {
  afterAll(async () => {
    await control('infra', 'qdrant', { do: 'start' });
    await eventually(async () => (await readyz(inject('serviceUrls')['search']!)).body.degraded === undefined, 60_000);
  }, 120_000);

  it('keyword and hybrid answer (hybrid says it fell back), semantic 503, never a 500; every node indexed once Qdrant is back; a restart keeps every vector', async () => {
    const tenants = await Promise.all([newTenant('qdrant-kill-a'), newTenant('qdrant-kill-b')]);
    const [a] = tenants as [Session, Session];
    const ids = tenants.map((t) => identityOf(t.access_token).tenantId);
    const before = await createNode(a.bearer, { title: 'Sourdough starter care', content: 'flour, water, wild yeast' });
    // Polled in Qdrant, not by searching: the probes below need the tenant's search budget (120 a minute).
    await eventually(async () => (await qdrantPoints(ids[0]!)) === 1, 60_000, 500);

    await control('infra', 'qdrant', { do: 'kill' });
    const killedAt = Date.now();
    const written = tenants.map(() => [] as Array<{ id: string; title: string }>);
    const writeStatuses: number[] = [];
    const writers = tenants.flatMap((t, k) =>
      [0, 1].map(async (half) => {
        for (let i = half; i < PER_TENANT; i += 2) {
          const res = await api<{ id: string }>('POST', '/nodes', { auth: t.bearer, body: { title: title(i) } });
          writeStatuses.push(res.status);
          if (res.status === 201) written[k]!.push({ id: res.body.id, title: title(i) });
        }
      }),
    );
    let writing = true;
    const allWritten = Promise.all(writers).finally(() => (writing = false));

    // While it is down (and the writes go on): probe every mode and both readiness endpoints.
    const probes: Probe[] = [];
    const readiness: Array<{ gateway: number; search: number; degraded?: string[] }> = [];
    while (writing || Date.now() - killedAt < DOWN_MS) {
      for (const mode of ['keyword', 'semantic', 'hybrid'] as const) {
        const res = await searchAt(inject('baseUrl'), a.bearer, mode, 'repairing a wooden fence');
        probes.push({
          mode,
          status: res.status,
          type: res.headers.get('content-type'),
          retryAfter: res.headers.get('retry-after'),
          fallback: (res.body as { fallback?: unknown }).fallback,
          header: res.headers.get('kg-search-fallback'),
        });
      }
      const [gateway, search] = await Promise.all([
        readyz(inject('baseUrl')),
        readyz(inject('serviceUrls')['search']!),
      ]);
      readiness.push({
        gateway: gateway.status,
        search: search.status,
        ...(search.body.degraded ? { degraded: search.body.degraded } : {}),
      });
      await sleep(3000);
    }
    await allWritten;
    expect(writeStatuses.filter((s) => s !== 201)).toEqual([]);
    expect(written.map((w) => w.length)).toEqual([PER_TENANT, PER_TENANT]);
    expect(probes.filter((p) => p.status >= 500 && p.status !== 503)).toEqual([]);
    const of = (mode: string) => probes.filter((p) => p.mode === mode);
    expect(of('keyword').length).toBeGreaterThanOrEqual(10);
    expect(of('keyword').every((p) => p.status === 200 && p.header === null)).toBe(true);
    for (const p of of('semantic'))
      expect(p).toMatchObject({
        status: 503,
        type: expect.stringContaining('application/problem+json'),
        retryAfter: '5',
      });
    for (const p of of('hybrid')) expect(p).toMatchObject({ status: 200, fallback: 'keyword', header: 'keyword' });
    expect(readiness.every((r) => r.gateway === 200 && r.search === 200 && r.degraded?.join() === 'vectors')).toBe(
      true,
    );
    // Keyword search answered from graph all along: the fence nodes written meanwhile are there.
    const keyword = await searchAt(inject('baseUrl'), a.bearer, 'keyword', 'repairing a wooden fence');
    expect(keyword.body.data.length).toBeGreaterThan(0);

    // Back on its storage: the indexer retries, and every node of each tenant gets its vector.
    await control('infra', 'qdrant', { do: 'start' });
    for (const [k, t] of tenants.entries()) {
      const total = (await api<{ total: number }>('GET', '/nodes?per_page=1', { auth: t.bearer })).body.total;
      expect(total).toBe(written[k]!.length + (k === 0 ? 1 : 0));
      await eventually(async () => (await qdrantPoints(ids[k]!)) === total, 180_000, 1000);
    }
    expect((await readyz(inject('serviceUrls')['search']!)).body.degraded).toBeUndefined();
    // Found by meaning: a sample of the nodes written during the outage, each by its own title.
    for (const node of written[0]!.filter((_, i) => i % 25 === 0)) {
      const res = await searchAt(inject('baseUrl'), a.bearer, 'semantic', node.title);
      expect(res.status).toBe(200);
      expect(
        res.body.data.map((n) => n.id),
        node.title,
      ).toContain(node.id);
    }
    const hybrid = await searchAt(inject('baseUrl'), a.bearer, 'hybrid', 'fermented dough culture');
    expect(hybrid.headers.get('kg-search-fallback')).toBeNull();
    expect(hybrid.body).not.toHaveProperty('fallback');
    expect(hybrid.body.data[0]?.id).toBe(before.id);

    // Stopped cleanly and started on its storage: every vector is still there.
    const counted = await Promise.all(ids.map(qdrantPoints));
    await control('infra', 'qdrant', { do: 'stop' });
    await control('infra', 'qdrant', { do: 'start' });
    expect(await Promise.all(ids.map(qdrantPoints))).toEqual(counted);
    await eventually(
      async () =>
        (await searchAt(inject('baseUrl'), a.bearer, 'semantic', 'fermented dough culture')).body.data[0]?.id ===
        before.id,
      30_000,
      1000,
    );
  }, 600_000);
});
