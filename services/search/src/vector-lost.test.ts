import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { pino } from 'pino';
import type { NodeEvent } from '@kg/contracts';
import { createMemoryBus, newEventId } from '@kg/bus';
import { newId, openDatabase, type Database } from '@kg/db';
import { createMemoryVectorIndex } from '@kg/vectors';
import { createSearchModule, searchMigrations } from './module';
import { fakeGraph, testEmbedder } from './testing';
import { applyNodeEvent } from './consumers/node-events';
import { nodesCollection, type IndexedNode } from './indexing/indexer';

const tenant = 'tnt_01jd8x6q1bf5r3v2m9w7k4t0za';
let database: Database;
beforeAll(async () => {
  database = await openDatabase({ dataDir: null });
  await database.migrate(searchMigrations);
}, 60_000);
afterAll(() => database.close());

/**
 * The vector collection lost while search's records say every node is indexed (a Qdrant volume
 * replaced, an in-process index's folder emptied by a pod restart): search must notice the
 * collection is new and embed every node again, not answer semantic searches from nothing.
 */
describe('a vector collection lost between two starts', () => {
  it('is made anew at start-up and refilled with every node; an existing one is not embedded again', async () => {
    const graphNodes = new Map([[tenant, new Map<string, IndexedNode>()]]);
    for (let i = 0; i < 12; i += 1) {
      const n: IndexedNode = {
        id: newId('node'),
        title: `Note ${i}`,
        summary: '',
        body_markdown: `body words ${i}`,
        status: 'raw',
        para_item_ids: [],
        source_capture_id: null,
        updated_at: '2026-01-01T00:00:00.000Z',
      };
      graphNodes.get(tenant)!.set(n.id, n);
      await applyNodeEvent(database.db, {
        id: newEventId(),
        tenant_id: tenant,
        occurred_at: n.updated_at,
        version: i + 1,
        type: 'node.created',
        data: {
          node: {
            id: n.id,
            title: n.title,
            summary: '',
            tags: [],
            status: 'raw',
            para_item_ids: [],
            updated_at: n.updated_at,
          },
        },
      } as NodeEvent);
    }
    const dir = mkdtempSync(join(tmpdir(), 'kg-vectors-lost-'));
    const lines: Array<{ level: number; msg: string; [k: string]: unknown }> = [];
    const logger = pino(
      { level: 'info' },
      new Writable({
        write(chunk: Buffer, _enc, done) {
          for (const line of chunk.toString().split('\n')) if (line) lines.push(JSON.parse(line) as never);
          done();
        },
      }),
    );
    const collection = nodesCollection('test-bow-256', 256);
    const run = async (until: (count: number) => boolean) => {
      const embedder = testEmbedder();
      const vectors = createMemoryVectorIndex({ dir });
      const module = await createSearchModule({
        database,
        bus: createMemoryBus(logger),
        logger,
        vectors,
        embedder,
        graph: fakeGraph(graphNodes),
        indexIntervalMs: 20,
      });
      await module.start();
      await vi.waitFor(async () => expect(until(await vectors.count(collection, { tenant_id: tenant }))).toBe(true), {
        timeout: 20_000,
        interval: 20,
      });
      await module.stop();
      return embedder.calls;
    };

    expect(await run((n) => n === 12)).toBeGreaterThanOrEqual(12); // first start: every node embedded
    expect(lines.filter((l) => l.level >= 40)).toEqual([]);
    expect(await run((n) => n === 12)).toBe(0); // a restart on the same index: nothing embedded again

    for (const file of readdirSync(dir)) rmSync(join(dir, file)); // the index lost
    expect(await run((n) => n === 12)).toBeGreaterThanOrEqual(12);
    const told = lines.filter((l) => l.level >= 40);
    expect(told).toHaveLength(1);
    expect(told[0]).toMatchObject({ level: 40, collection, nodes: 12 });
    expect(told[0]!.msg).toMatch(/made anew.*embedded again/);
  }, 60_000);
});
