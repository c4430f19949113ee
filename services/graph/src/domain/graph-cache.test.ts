import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { createLogger } from '@kg/logger';
import { HARNESS_TIMEOUT, graphHarness, identity } from '../testing';
import { loadSnapshot } from '../store/snapshot';
import { GraphCache } from './graph-cache';
import { TenantGraph } from './tenant-graph';

let h: Awaited<ReturnType<typeof graphHarness>>;
beforeAll(async () => {
  h = await graphHarness();
}, HARNESS_TIMEOUT);
afterAll(() => h.database.close());

type Op =
  | { op: 'links'; src: number; targets: number[]; w: number }
  | { op: 'status'; n: number; status: 'raw' | 'validated' | 'dismissed' }
  | { op: 'delete'; n: number };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  fc.record({
    op: fc.constant('links' as const),
    src: fc.nat({ max: 5 }),
    targets: fc.uniqueArray(fc.nat({ max: 5 }), { maxLength: 4 }),
    w: fc.constantFrom(0.3, 0.6, 1),
  }),
  fc.record({
    op: fc.constant('status' as const),
    n: fc.nat({ max: 5 }),
    status: fc.constantFrom('raw' as const, 'validated' as const, 'dismissed' as const),
  }),
  fc.record({ op: fc.constant('delete' as const), n: fc.nat({ max: 5 }) }),
);

describe('graph-view cache', () => {
  it('replaying the change log always equals a fresh snapshot (property)', async () => {
    let tenant = 40;
    const cache = new GraphCache(h.database.db, createLogger('t', 'silent'));
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { minLength: 1, maxLength: 10 }), async (ops) => {
        const t = tenant++;
        const client = h.as(t);
        const ids: Array<string | null> = [];
        for (let i = 0; i < 6; i++) ids.push((await client.nodes.create({ title: `n${i}` })).id);
        await cache.get(identity(t).tenantId);
        for (const [i, op] of ops.entries()) {
          if (op.op === 'links' && ids[op.src]) {
            const links = op.targets
              .filter((x) => x !== op.src && ids[x])
              .map((x) => ({ target_id: ids[x]!, type: 'related', weight: op.w }));
            await client.links.replace({ id: ids[op.src]!, links });
          } else if (op.op === 'status' && ids[op.n]) {
            await client.nodes.update({ id: ids[op.n]!, patch: { status: op.status } });
          } else if (op.op === 'delete' && ids[op.n]) {
            await client.nodes.delete({ id: ids[op.n]! });
            ids[op.n] = null;
          }
          if (i % 2 === 0) await cache.get(identity(t).tenantId);
        }
        const cached = await cache.get(identity(t).tenantId);
        const fresh = TenantGraph.fromSnapshot(await loadSnapshot(h.database.db, identity(t).tenantId));
        expect(cached.version).toBe(fresh.version);
        expect(cached.plain()).toEqual(fresh.plain());
        expect(cached.linkRows).toBe(fresh.linkRows);
        expect(cached.hub()).toBe(fresh.hub());
      }),
      { numRuns: 15 },
    );
  }, 120_000);

  it('counts reads from memory, reads that found no graph, loads and evictions, and reports what it holds', async () => {
    const cache = new GraphCache(h.database.db, createLogger('t', 'silent'), { maxLinkRows: 2 });
    const tenants = [90, 91].map((t) => identity(t).tenantId);
    for (const t of [90, 91]) {
      const client = h.as(t);
      const a = (await client.nodes.create({ title: 'a' })).id;
      const b = (await client.nodes.create({ title: 'b' })).id;
      await client.links.replace({ id: a, links: [{ target_id: b, type: 'related', weight: 1 }] });
    }
    // Each tenant: a read that finds no graph (and waits for its load), then one from memory.
    for (const t of tenants) {
      await cache.get(t);
      await cache.get(t);
    }
    // Two links are held per tenant (one row each way): the budget of 2 keeps only the last one.
    expect(cache.stats).toEqual({ hits: 2, misses: 2, loads: 2, evictions: 1 });
    expect(cache.held()).toEqual({ tenants: 1, nodes: 2, linkRows: 2 });
  });
});
