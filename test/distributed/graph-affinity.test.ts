import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { rendezvousOrder } from '@kg/trpc';
import { newTenant } from '../e2e/support/client';
import { control, identityOf } from './support/cluster-api';

const GRAPHS = ['graph', 'graph-replica', 'graph-replica-3'] as const;
const TENANTS = 30;
const NODES = 30;
/** Neighbour pages read per tenant, each of another node (the gateway's view cache never answers them). */
const READS = 12;

interface Tenant {
  bearer: string;
  tenantId: string;
  nodes: string[];
}

const gatewayUrl = (name: string) => inject('serviceUrls')[name]!;

async function call(base: string, method: string, path: string, bearer: string, body?: unknown) {
  const res = await fetch(`${base}/api/v1${path}`, {
    method,
    headers: { authorization: bearer, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  expect(res.status, `${method} ${path}: ${text.slice(0, 300)}`).toBeLessThan(300);
  return JSON.parse(text) as { id: string };
}

/** Runs `fn` over `items`, `width` at a time. */
async function pool<T>(items: T[], width: number, fn: (item: T) => Promise<void>) {
  const queue = [...items];
  await Promise.all(
    Array.from({ length: width }, async () => {
      for (let item = queue.shift(); item !== undefined; item = queue.shift()) await fn(item);
    }),
  );
}

type Cache = { hits: number; misses: number; loads: number; tenants: number; linkRows: number; rss: number };

type Caches = Record<(typeof GRAPHS)[number], Cache>;

/** One graph process's view cache and resident memory, from its /metrics. */
async function cacheOf(name: string): Promise<Cache> {
  const text = await (await fetch(`${inject('metricsUrls')[name]}/metrics`)).text();
  const value = (metric: string, labels = '') => {
    // Lines as `name{labels} value`: the registry adds service="…" to every metric's labels.
    const line = text
      .split('\n')
      .find((l) => (l.startsWith(`${metric}{`) || l.startsWith(`${metric} `)) && l.includes(labels));
    if (!line) throw new Error(`${name}: no ${metric} on /metrics`);
    return Number(line.slice(line.lastIndexOf(' ') + 1));
  };
  return {
    hits: value('kg_graph_view_cache_requests_total', 'result="hit"'),
    misses: value('kg_graph_view_cache_requests_total', 'result="miss"'),
    loads: value('kg_graph_view_cache_loads_total'),
    tenants: value('kg_graph_view_cache_tenants'),
    linkRows: value('kg_graph_view_cache_link_rows'),
    rss: value('process_resident_memory_bytes'),
  };
}

/** Restarts the three graph processes: every phase starts with cold caches. */
async function restartGraphs() {
  for (const name of GRAPHS) {
    await control('stop', name);
    await control('start', name);
  }
}

/** Every tenant's neighbour pages through `gateway`; then each replica's cache as the reads left it. */
async function readThrough(gateway: string, tenants: Tenant[]) {
  await pool(tenants, 6, async (t) => {
    for (let i = 0; i < READS; i++)
      await call(gatewayUrl(gateway), 'GET', `/graph/neighbors/${t.nodes[i]}?limit=20`, t.bearer);
  });
  // The loads the reads started end in the background: let them finish before reading the caches.
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  return Object.fromEntries(await Promise.all(GRAPHS.map(async (g) => [g, await cacheOf(g)] as const))) as Caches;
}

const hitRate = (caches: Caches) => {
  const all = Object.values(caches);
  const hits = all.reduce((n, c) => n + c.hits, 0);
  return hits / (hits + all.reduce((n, c) => n + c.misses, 0));
};

/**
 * Issue 24, item 5: three graph replicas on one database, 30 tenants, and two gateways over
 * the same three (GRAPH_REPLICAS): one routes a tenant's graph calls to one replica
 * (rendezvous hashing, GRAPH_ROUTING=tenant), the other takes the replicas in turn. The same
 * reads go through each, the replicas restarted in between (cold caches): the tenant-affine
 * gateway loads each tenant's graph once and each replica holds only its share; round-robin
 * loads every tenant on every replica.
 */
describe('tenant-affine graph replicas', () => {
  const tenants: Tenant[] = [];

  beforeAll(async () => {
    for (const name of ['graph-replica', 'graph-replica-3', 'gateway-graph-affine', 'gateway-graph-round-robin'])
      await control('start', name);
    for (let i = 0; i < TENANTS; i++) {
      const s = await newTenant(`affinity-${i}`);
      tenants.push({ bearer: s.bearer, tenantId: identityOf(s.access_token).tenantId, nodes: [] });
    }
    const main = inject('baseUrl');
    await pool(tenants, 6, async (t) => {
      for (let i = 0; i < NODES; i++)
        t.nodes.push((await call(main, 'POST', '/nodes', t.bearer, { title: `Note ${i}`, content: `Body ${i}` })).id);
      // Each node linked to the three before and the three after it (PATCH replaces a node's
      // links, both ways: each node's whole set), a ring of 90 links.
      for (let i = 0; i < NODES; i++) {
        const links = [-3, -2, -1, 1, 2, 3].map((d) => ({
          target_id: t.nodes[(i + d + NODES) % NODES]!,
          type: 'related',
          weight: 0.5,
        }));
        await call(main, 'PATCH', `/nodes/${t.nodes[i]}/links`, t.bearer, { links });
      }
    });
  }, 300_000);

  afterAll(async () => {
    for (const name of ['gateway-graph-round-robin', 'gateway-graph-affine', 'graph-replica-3', 'graph-replica'])
      await control('stop', name);
    await control('start', 'graph');
  }, 180_000);

  it('loads each tenant on one replica, spreads the tenants over all three, and hits more than round-robin', async () => {
    await restartGraphs();
    const roundRobin = await readThrough('gateway-graph-round-robin', tenants);
    await restartGraphs();
    const affine = await readThrough('gateway-graph-affine', tenants);

    const sum = (caches: Caches, field: keyof Cache) => Object.values(caches).reduce((n, c) => n + c[field], 0);
    const report = (name: string, caches: Caches) =>
      `${name}: hit rate ${hitRate(caches).toFixed(3)}; ${GRAPHS.map(
        (g) =>
          `${g} ${caches[g].tenants} tenants, ${caches[g].linkRows} link rows, ${(caches[g].rss / 2 ** 20).toFixed(0)} MiB RSS`,
      ).join('; ')}`;
    console.log(`[graph affinity] ${report('round-robin', roundRobin)}`);
    console.log(`[graph affinity] ${report('tenant', affine)}`);

    // Every tenant's ring held whole: 90 links, a row each way.
    expect(sum(affine, 'linkRows')).toBe(TENANTS * 180);
    // Tenant-affine: each tenant's graph is loaded once, on one replica, and all three have a share.
    expect(sum(affine, 'loads')).toBe(TENANTS);
    expect(sum(affine, 'tenants')).toBe(TENANTS);
    for (const g of GRAPHS) expect(affine[g].tenants).toBeGreaterThan(0);
    // Round-robin: a tenant's twelve reads reach every replica, which each load its graph.
    expect(sum(roundRobin, 'tenants')).toBeGreaterThan(2 * TENANTS);
    expect(sum(affine, 'linkRows') * 2).toBeLessThan(sum(roundRobin, 'linkRows'));
    // Cold reads: those of a tenant before its one load ends, against those before each replica's.
    expect(sum(affine, 'misses')).toBeLessThan(sum(roundRobin, 'misses'));
    expect(hitRate(affine)).toBeGreaterThan(hitRate(roundRobin));
  }, 300_000);

  it('sends a tenant to its next replica while its owner is down, and back when it returns', async () => {
    const urls = GRAPHS.map((g) => inject('serviceUrls')[g]!);
    const t = tenants[0]!;
    const owner = GRAPHS[urls.indexOf(rendezvousOrder(t.tenantId, urls)[0]!)]!;
    await control('stop', owner);
    try {
      for (let i = 0; i < 5; i++)
        await call(gatewayUrl('gateway-graph-affine'), 'GET', `/graph/neighbors/${t.nodes[i + 20]}?limit=20`, t.bearer);
      await call(gatewayUrl('gateway-graph-affine'), 'POST', '/nodes', t.bearer, {
        title: 'Written while the owner is down',
      });
    } finally {
      await control('start', owner);
    }
    const before = await cacheOf(owner);
    // Past the 5 s an unreachable replica goes last: the owner has its tenant again.
    await new Promise((resolve) => setTimeout(resolve, 5_500));
    await call(gatewayUrl('gateway-graph-affine'), 'GET', `/graph/neighbors/${t.nodes[27]}?limit=20`, t.bearer);
    const after = await cacheOf(owner);
    expect(after.hits + after.misses).toBe(before.hits + before.misses + 1);
  }, 180_000);
});
