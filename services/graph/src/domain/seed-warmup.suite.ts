import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Identity } from '@kg/contracts';
import { createCursorStore, createMemoryKv } from '@kg/kv';
import { createLogger } from '@kg/logger';
import type { Db } from '@kg/db';
import { HARNESS_TIMEOUT, fakePara, freshIdentity, graphHarness, identity, type HarnessOptions } from '../testing';
import { loadSnapshot } from '../store/snapshot';
import { GraphCache } from './graph-cache';
import { TenantGraph } from './tenant-graph';
import { neighborsView, neighborsViewFromDatabase, seedView, seedViewFromDatabase, type ViewContext } from './views';

/** The suite, on PGlite (seed-warmup.test.ts) and on PostgreSQL (seed-warmup.postgres.test.ts). */
export function warmupSuite(name: string, options: () => HarnessOptions) {
  describe(name, () => {
    let h: Awaited<ReturnType<typeof graphHarness>>;
    beforeAll(async () => {
      h = await graphHarness(options());
    }, HARNESS_TIMEOUT);
    afterAll(() => h?.database.close());

    const silent = createLogger('t', 'silent');
    const context = (db: Db, graphs: GraphCache): ViewContext => ({
      db,
      para: fakePara(new Set()),
      afterCommit: () => {},
      now: () => new Date(),
      cursors: createCursorStore(createMemoryKv(), 't'),
      graphs,
    });

    /** A small graph with hubs, equal weights (ties by id) and a dismissed node. */
    async function seedTenant(t: Identity) {
      const client = h.as(t);
      const ids: string[] = [];
      for (let i = 0; i < 24; i++) ids.push((await client.nodes.create({ title: `n${i}` })).id);
      for (let i = 0; i < ids.length; i++) {
        const targets = [...new Set([0, 1, (i * 7) % ids.length, (i * 5 + 3) % ids.length, i + 1])].filter(
          (j) => j !== i && j < ids.length,
        );
        await client.links.replace({
          id: ids[i]!,
          links: targets.map((j) => ({
            target_id: ids[j]!,
            type: j % 2 ? 'related' : 'supports',
            weight: ((i + j) % 4) / 4 + 0.25,
          })),
        });
      }
      await client.nodes.update({ id: ids[5]!, patch: { status: 'dismissed' } });
      return ids;
    }

    /** Counts the statements a database handle runs (select and execute). */
    function counting(db: Db) {
      const calls = { n: 0 };
      const proxy = new Proxy(db, {
        get(target, prop, receiver) {
          const value = Reflect.get(target, prop, receiver) as unknown;
          if ((prop === 'select' || prop === 'execute' || prop === 'transaction') && typeof value === 'function')
            return (...args: unknown[]) => {
              calls.n++;
              return (value as (...a: unknown[]) => unknown).apply(target, args);
            };
          return value;
        },
      });
      return { db: proxy, calls };
    }

    describe('seed view while the tenant graph warms up', () => {
      it('answers from the database exactly as from memory (every seed, depth and bound)', async () => {
        const t = freshIdentity();
        const ids = await seedTenant(t);
        const ctx = context(h.database.db, new GraphCache(h.database.db, silent));
        await ctx.graphs.get(identity(t).tenantId);
        for (const seed of [undefined, ids[0], ids[3], ids[17], ids[23]])
          for (const depth of [1, 2, 3])
            for (const max_nodes of [1, 4, 10, 500]) {
              const q = { depth, max_nodes, ...(seed ? { seed } : {}) };
              expect(await seedViewFromDatabase(ctx, identity(t), q), JSON.stringify(q)).toEqual(
                await seedView(ctx, identity(t), q),
              );
            }
        await expect(
          seedViewFromDatabase(ctx, identity(t), { seed: ids[5]!, depth: 1, max_nodes: 10 }),
        ).rejects.toThrow();
      }, 120_000);

      it('pages neighbours from memory exactly as from the database, cursor after cursor', async () => {
        const t = freshIdentity();
        const ids = await seedTenant(t);
        const ctx = context(h.database.db, new GraphCache(h.database.db, silent));
        await ctx.graphs.get(identity(t).tenantId);
        const walk = async (
          view: typeof neighborsView,
          id: string,
          direction: 'out' | 'in' | 'both',
          limit: number,
        ) => {
          const pages: unknown[] = [];
          let cursor: string | undefined;
          do {
            const page = await view(ctx, identity(t), id, { direction, limit, ...(cursor ? { cursor } : {}) });
            pages.push({ ...page, next_cursor: page.next_cursor ? 'more' : null });
            cursor = page.next_cursor ?? undefined;
          } while (cursor);
          return pages;
        };
        for (const id of [ids[0]!, ids[1]!, ids[9]!])
          for (const direction of ['out', 'in', 'both'] as const)
            for (const limit of [1, 3, 50])
              expect(await walk(neighborsView, id, direction, limit), `${id} ${direction} ${limit}`).toEqual(
                await walk(neighborsViewFromDatabase, id, direction, limit),
              );
        for (const view of [neighborsView, neighborsViewFromDatabase])
          await expect(view(ctx, identity(t), ids[5]!, { direction: 'both', limit: 5 })).rejects.toThrow();
      }, 120_000);

      it('does not wait for the load: the first view comes from the database, later ones from memory', async () => {
        const t = freshIdentity();
        await seedTenant(t);
        const cache = new GraphCache(h.database.db, silent, { chunkRows: 7 });
        const ctx = context(h.database.db, cache);
        const tenant = identity(t).tenantId;
        expect(await cache.current(tenant)).toBeNull();
        const first = await seedView(ctx, identity(t), { depth: 3, max_nodes: 500 });
        const loaded = await cache.get(tenant);
        expect(await cache.current(tenant)).toBe(loaded);
        expect(await seedView(ctx, identity(t), { depth: 3, max_nodes: 500 })).toEqual(first);
        // Loaded in pages of 7 link rows: the same graph as one snapshot.
        const whole = TenantGraph.fromSnapshot(await loadSnapshot(h.database.db, tenant));
        expect(loaded.linkRows).toBe(whole.linkRows);
        expect(loaded.plain()).toEqual(whole.plain());
      }, 60_000);

      it('with a single writer, serves an unchanged tenant without a statement and sees every write', async () => {
        const t = freshIdentity();
        const ids = await seedTenant(t);
        const { db, calls } = counting(h.database.db);
        const cache = new GraphCache(db, silent, { singleWriter: true });
        const ctx = context(db, cache);
        const tenant = identity(t).tenantId;
        await cache.get(tenant);
        calls.n = 0;
        await cache.current(tenant);
        await cache.current(tenant);
        expect(calls.n).toBe(0);
        // A write (told through tenantChanged, as tenantWrite does) is seen by the next view.
        await h.as(t).nodes.update({ id: ids[0]!, patch: { title: 'renamed hub' } });
        cache.changed(tenant);
        const view = await seedView(ctx, identity(t), { seed: ids[0]!, depth: 1, max_nodes: 500 });
        expect(view.nodes[0]).toMatchObject({ id: ids[0], title: 'renamed hub' });
        expect(calls.n).toBeGreaterThan(0);
      }, 60_000);
    });
  });
}
