import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createNode, newTenant } from '../e2e/support/client';
import { control, eventually, identityOf } from './support/cluster-api';
import { qdrantPoints, searchAt } from './support/vectors';

const NODES = {
  bread: {
    title: 'Sourdough starter care',
    content: 'Feed the starter with flour and water every day; keep it warm so the wild yeast stays active.',
    query: 'maintaining a fermented dough culture',
  },
  bike: {
    title: 'Bicycle chain upkeep',
    content: 'Wipe the chain, then oil each link and spin the pedals backwards before riding in the rain.',
    query: 'lubricating a bike drivetrain',
  },
  tea: {
    title: 'Brewing green tea',
    content: 'Steep the leaves for two minutes in water just below boiling so the infusion is not bitter.',
    query: 'how to make a cup of sencha',
  },
};

/**
 * Two search processes (search and search-replica, scripts/distributed/replicas.ts) on one
 * database, one Kafka consumer group and one Qdrant; gateway-search-replica sends its search
 * calls to the replica. Each node is written while only one of the two runs, so only that one
 * can have embedded it, and is then searched through the other, which never saw it. With the
 * in-process index (KG_DISTRIBUTED_VECTORS=in-process: a folder per process, as a pod's /tmp)
 * the other replica does not find it.
 */
describe('two search replicas on one Qdrant', () => {
  const main = () => inject('baseUrl');
  const replica = () => inject('serviceUrls')['gateway-search-replica']!;

  beforeAll(async () => {
    await control('start', 'search-replica');
    await control('start', 'gateway-search-replica');
  }, 180_000);
  afterAll(async () => {
    await control('start', 'search');
    await control('stop', 'gateway-search-replica');
    await control('stop', 'search-replica');
  }, 180_000);

  it('a node indexed by one replica is found through the other, both ways, and both answer alike', async () => {
    const s = await newTenant('replicas');
    const firstHit = async (gateway: string, query: string) => {
      const res = await searchAt(gateway, s.bearer, 'semantic', query);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return res.body.data[0]?.id;
    };
    const indexedThrough = (gateway: string, id: string, query: string) =>
      eventually(async () => (await firstHit(gateway, query)) === id, 120_000, 250);

    // Only the replica runs: it takes every partition of the node events and embeds the node.
    await control('stop', 'search');
    const bread = await createNode(s.bearer, { title: NODES.bread.title, content: NODES.bread.content });
    await indexedThrough(replica(), bread.id, NODES.bread.query);
    // Only the first process runs: it never embedded the node, and finds it.
    await control('start', 'search');
    await control('stop', 'search-replica');
    expect(await firstHit(main(), NODES.bread.query)).toBe(bread.id);

    // The other way round: embedded by the first process alone, found through the replica.
    const bike = await createNode(s.bearer, { title: NODES.bike.title, content: NODES.bike.content });
    await indexedThrough(main(), bike.id, NODES.bike.query);
    await control('start', 'search-replica');
    expect(await firstHit(replica(), NODES.bike.query)).toBe(bike.id);
    expect(await firstHit(replica(), NODES.bread.query)).toBe(bread.id);

    // Both running (both index, from the one database): a new node is found through each, and
    // the two answer every query with the same hits in the same order, from one vector per node.
    const tea = await createNode(s.bearer, { title: NODES.tea.title, content: NODES.tea.content });
    await indexedThrough(main(), tea.id, NODES.tea.query);
    await indexedThrough(replica(), tea.id, NODES.tea.query);
    const ids = { bread: bread.id, bike: bike.id, tea: tea.id };
    for (const [key, { query }] of Object.entries(NODES)) {
      const [a, b] = await Promise.all([main(), replica()].map((g) => searchAt(g, s.bearer, 'semantic', query)));
      expect(a!.body.data[0]?.id, query).toBe(ids[key as keyof typeof ids]);
      expect(
        b!.body.data.map((n) => n.id),
        query,
      ).toEqual(a!.body.data.map((n) => n.id));
    }
    expect(await qdrantPoints(identityOf(s.access_token).tenantId)).toBe(3);
  }, 420_000);
});
