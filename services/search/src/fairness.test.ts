import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TRPCClientError } from '@trpc/client';
import { searchApi } from '@kg/contracts';
import { createMemoryBus } from '@kg/bus';
import { openDatabase, type Database } from '@kg/db';
import type { Embedder } from '@kg/embeddings';
import { createLogger } from '@kg/logger';
import { connectService } from '@kg/trpc';
import { createMemoryVectorIndex } from '@kg/vectors';
import { createSearchModule, searchMigrations } from './module';
import { fakeGraph, testEmbedder } from './testing';

const tenantA = 'tnt_01jd8x6q1bf5r3v2m9w7k4t0za';
const tenantB = 'tnt_01jd8x6q1bf5r3v2m9w7k4t0zb';
const identity = (tenantId: string) => ({ tenantId, subject: 'usr_x', credential: { kind: 'jwt' as const, id: 'j' } });
const logger = createLogger('test', 'silent');

/** The test embedder, holding each call until `next()` lets the oldest one through; `order` lists the texts as they ran. */
function steppedEmbedder() {
  const inner = testEmbedder();
  const order: string[] = [];
  const held: Array<() => void> = [];
  const embedder: Embedder = {
    model: inner.model,
    dimensions: inner.dimensions,
    modelInput: (text) => text,
    async embed(texts, kind) {
      order.push(...texts);
      await new Promise<void>((resolve) => held.push(resolve));
      return inner.embed(texts, kind);
    },
    close: async () => {},
  };
  const settle = () => new Promise((r) => setImmediate(r));
  return {
    embedder,
    order,
    async next() {
      await settle();
      held.shift()?.();
      await settle();
    },
    get held() {
      return held.length;
    },
  };
}

let database: Database;
beforeAll(async () => {
  database = await openDatabase({ dataDir: null });
  await database.migrate(searchMigrations);
}, 60_000);
afterAll(() => database.close());

describe('search under a flood from one tenant', () => {
  it('refuses the flooding tenant beyond its queue (429, Retry-After) and serves another tenant right after the embedding in progress', async () => {
    const stepped = steppedEmbedder();
    const module = await createSearchModule({
      database,
      bus: createMemoryBus(logger),
      logger,
      vectors: createMemoryVectorIndex(),
      embedder: stepped.embedder,
      graph: fakeGraph(new Map()),
      embedQueuePerTenant: 4,
    });
    const as = (tenantId: string) =>
      connectService('gateway', 'search', searchApi, { kind: 'local', router: module.router }).as(identity(tenantId));
    const query = (tenantId: string, text: string) =>
      as(tenantId)
        .nodes.search({ query: text, mode: 'semantic', page: 1, per_page: 10 })
        .then(
          () => 'ok',
          (err: unknown) => err,
        );

    const flood = Array.from({ length: 20 }, (_, i) => query(tenantA, `flood ${i}`));
    await new Promise((r) => setImmediate(r));
    expect(stepped.order).toEqual(['flood 0']);
    const fromB = query(tenantB, 'my own question');
    // A's first query runs and 4 wait: the other 15 were refused at once, before any finished.
    const refused = (await Promise.all(flood.slice(5))) as unknown[];
    for (const err of refused) {
      expect(err).toBeInstanceOf(TRPCClientError);
      const problem = (err as TRPCClientError<never>).data as unknown as {
        httpStatus: number;
        problem: Record<string, unknown>;
      };
      expect(problem.httpStatus).toBe(429);
      expect(problem.problem).toMatchObject({ status: 429, retryAfterSeconds: 1 });
      expect(problem.problem['detail']).toMatch(/waiting for the embedder \(at most 4\)/);
    }
    while (stepped.held > 0) await stepped.next();
    expect(await fromB).toBe('ok');
    expect(await Promise.all(flood.slice(0, 5))).toEqual(['ok', 'ok', 'ok', 'ok', 'ok']);
    // B's query ran second: right after the query of A's running when it came.
    expect(stepped.order.slice(0, 3)).toEqual(['flood 0', 'my own question', 'flood 1']);
    await module.stop();
  });
});
