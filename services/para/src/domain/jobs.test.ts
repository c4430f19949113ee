import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '@kg/db';
import { createLogger } from '@kg/logger';
import type { graphApi, Identity } from '@kg/contracts';
import type { ServiceHandle } from '@kg/trpc';
import { paraMigrations } from '../module';
import { findJob } from '../store/jobs';
import type { ParaContext } from './context';
import { createItem } from './items';
import { BATCH, runJob, startJob, THRESHOLD } from './jobs';
import type { OrphanScorer } from './scorer';

const who: Identity = {
  tenantId: 'tnt_01jd8x6q1bf5r3v2m9w7k4t0zb',
  subject: 'u',
  credential: { kind: 'jwt', id: 'j' },
};

/**
 * A graph of `n` orphan candidates (node_000…), every third one scoring above the threshold
 * for the first item; assignments remove a node from the candidates, like the graph does.
 */
function fakeGraph(n: number, failAfterCalls = Infinity) {
  const candidates = new Set(Array.from({ length: n }, (_, i) => `node_${String(i).padStart(4, '0')}`));
  const assigned = new Map<string, number>();
  let calls = 0;
  const scorer: OrphanScorer = {
    method: 'fake',
    count: async () => candidates.size,
    page: async (_identity, items, after, limit) => {
      const nodes = [...candidates]
        .sort()
        .filter((id) => after === null || id > after)
        .slice(0, limit)
        .map((id) => {
          const good = Number(id.slice(5)) % 3 === 0;
          return { id, para_item_id: good ? items[0]!.id : null, score: good ? THRESHOLD + 0.1 : 0 };
        });
      return { nodes, next: nodes.length === limit ? nodes.at(-1)!.id : null };
    },
  };
  const graph = {
    service: 'graph',
    as: () => ({
      assignments: {
        autoAssign: async ({ assignments }: { assignments: Array<{ node_id: string }> }) => {
          if (++calls > failAfterCalls) throw new Error('process killed');
          let count = 0;
          for (const a of assignments) {
            if (!candidates.delete(a.node_id)) continue;
            assigned.set(a.node_id, (assigned.get(a.node_id) ?? 0) + 1);
            count++;
          }
          return { assigned: count };
        },
      },
    }),
  } as unknown as ServiceHandle<typeof graphApi>;
  return { scorer, graph, assigned, fail: (after: number) => (failAfterCalls = calls + after) };
}

let database: Database;
beforeAll(async () => {
  database = await openDatabase({ dataDir: null });
  await database.migrate(paraMigrations);
}, 60_000);
afterAll(() => database.close());

const context = (g: ReturnType<typeof fakeGraph>): ParaContext => ({
  db: database.db,
  graph: g.graph,
  scorer: g.scorer,
  logger: createLogger('test', 'silent'),
  now: () => new Date(),
  afterCommit: () => {},
});

describe('reclassification jobs', () => {
  it('assign the candidates at or above the threshold and count their progress', async () => {
    const g = fakeGraph(BATCH * 2 + 7);
    const ctx = context(g);
    const item = await createItem(ctx, who.tenantId, { category: 'areas', label: 'Fake' });
    const job = await startJob(ctx, who, 'match', item.id);
    expect(job).toMatchObject({ status: 'queued', queued: BATCH * 2 + 7, done: 0 });
    await runJob(ctx, who.tenantId, job.id);
    const after = await findJob(database.db, who.tenantId, job.id);
    const expected = Math.ceil((BATCH * 2 + 7) / 3);
    expect(after).toMatchObject({ status: 'done', done: BATCH * 2 + 7, assigned: expected });
    expect(g.assigned.size).toBe(expected);
    await runJob(ctx, who.tenantId, job.id);
    expect(await findJob(database.db, who.tenantId, job.id)).toEqual(after);
  });

  it('a job killed half-way resumes from its cursor and assigns every node exactly once', async () => {
    const n = BATCH * 4;
    const g = fakeGraph(n);
    const ctx = context(g);
    const item = await createItem(ctx, who.tenantId, { category: 'projects', label: 'Resume' });
    const job = await startJob(ctx, who, 'match', item.id);
    g.fail(2);
    await expect(runJob(ctx, who.tenantId, job.id)).rejects.toThrow('process killed');
    const half = await findJob(database.db, who.tenantId, job.id);
    expect(half).toMatchObject({ status: 'running', done: BATCH * 2 });
    g.fail(Infinity);
    await runJob(context(g), who.tenantId, job.id);
    expect(await findJob(database.db, who.tenantId, job.id)).toMatchObject({
      status: 'done',
      done: n,
      assigned: Math.ceil(n / 3),
    });
    expect([...g.assigned.values()].every((times) => times === 1)).toBe(true);
    expect(g.assigned.size).toBe(Math.ceil(n / 3));
  });
});
