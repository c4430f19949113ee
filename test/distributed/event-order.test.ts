import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { api, newTenant } from '../e2e/support/client';
import { control, eventually, identityOf, searchAs } from './support/cluster-api';

/** A public-API call through a given gateway (the e2e client always uses the first one). */
async function via(base: string, method: string, path: string, auth: string, body?: unknown) {
  const res = await fetch(`${base}/api/v1${path}`, {
    method,
    headers: { authorization: auth, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? null : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : undefined) as any };
}

/**
 * Two graph replicas relay one outbox and two gateways write through them at once:
 * creates, bursts of updates and deletes of the same nodes, interleaved across replicas.
 * Events may reach Kafka in any order between replicas; the search projection must
 * still end equal to the graph (same live nodes, same titles, no resurrected node).
 */
describe('event order with two graph replicas', () => {
  let gateways: string[];
  beforeAll(async () => {
    await control('start', 'graph-replica');
    await control('start', 'gateway-replica');
    gateways = [inject('baseUrl'), inject('serviceUrls')['gateway-replica']!];
  }, 120_000);
  afterAll(async () => {
    await control('stop', 'gateway-replica');
    await control('stop', 'graph-replica');
  }, 60_000);

  it('concurrent writes and deletes through both replicas leave the search projection equal to the graph', async () => {
    const s = await newTenant('order');
    const gw = (i: number) => gateways[i % 2]!;
    const created = await Promise.all(
      Array.from({ length: 16 }, (_, i) => via(gw(i), 'POST', '/nodes', s.bearer, { title: `n${i} v0` })),
    );
    expect(created.map((r) => r.status)).toEqual(created.map(() => 201));
    const ids = created.map((r) => r.body.id as string);

    // Six rounds of updates, all in flight at once: every node gets two updates per round
    // through different replicas, and in the fourth round every third node is deleted
    // through one replica while updates of it are in flight through both (those answer
    // 404 or land before the delete). Each replica's relay is woken by its own commits.
    const writes: Array<ReturnType<typeof via>> = [];
    for (let round = 1; round <= 6; round++) {
      writes.push(
        ...ids.flatMap((id, i) => {
          const ops = [
            via(gw(i + round), 'PATCH', `/nodes/${id}`, s.bearer, { title: `n${i} v${round}a` }),
            via(gw(i + round + 1), 'PATCH', `/nodes/${id}`, s.bearer, { title: `n${i} v${round}b` }),
          ];
          if (round === 4 && i % 3 === 0) ops.push(via(gw(i), 'DELETE', `/nodes/${id}`, s.bearer));
          return ops;
        }),
      );
    }
    const results = await Promise.all(writes);
    for (const r of results) expect([200, 204, 404]).toContain(r.status);
    expect(results.filter((r) => r.status === 204)).toHaveLength(6);

    const graph = await api<{ data: Array<{ id: string; title: string }>; total: number }>(
      'GET',
      '/nodes?per_page=100',
      { auth: s.bearer },
    );
    expect(graph.status).toBe(200);
    const live = new Map(graph.body.data.map((n) => [n.id, n.title]));
    const deleted = ids.filter((id) => !live.has(id));
    expect(deleted.length).toBe(6);
    expect(live.size).toBe(10);

    const search = searchAs(identityOf(s.access_token));
    const projection = async () => {
      const titles = new Map<string, string | null>();
      for (const id of ids) {
        titles.set(
          id,
          await search.documents.get({ node_id: id }).then(
            (d) => d.title,
            () => null,
          ),
        );
      }
      return { count: (await search.documents.count({})).count, titles };
    };
    const expected = new Map(ids.map((id) => [id, live.get(id) ?? null]));
    const settled = await eventually(
      async () => {
        const p = await projection();
        return p.count === live.size && [...expected].every(([id, t]) => p.titles.get(id) === t) && p;
      },
      60_000,
      500,
    ).catch(async (err: unknown) => {
      const p = await projection();
      expect({ count: p.count, titles: Object.fromEntries(p.titles) }).toEqual({
        count: live.size,
        titles: Object.fromEntries(expected),
      });
      throw err;
    });
    expect(settled.count).toBe(10);
    // A while later nothing has changed: no late event re-created a deleted node.
    await new Promise((r) => setTimeout(r, 2000));
    expect(Object.fromEntries((await projection()).titles)).toEqual(Object.fromEntries(expected));
  }, 180_000);
});
