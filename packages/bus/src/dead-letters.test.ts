import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { TOPICS, type NodeEvent } from '@kg/contracts';
import { createLogger } from '@kg/logger';
import { createFileDeadLetterStore, createMemoryDeadLetterStore, type DeadLetterStore } from './dead-letters';
import { createMemoryBus } from './memory-bus';
import { newEventId } from './outbox';

const logger = createLogger('test', 'silent');
const tenant = 'tnt_01jd8x6q1bf5r3v2m9w7k4t0za';
const dirs: string[] = [];
const tempDir = () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'kg-dlq-'));
  dirs.push(dir);
  return dir;
};
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

const event = (title: string): NodeEvent => ({
  id: newEventId(),
  type: 'node.created',
  tenant_id: tenant,
  occurred_at: '2026-01-01T00:00:00.000Z',
  version: 1,
  data: {
    node: {
      id: 'node_01jd8x6q1bf5r3v2m9w7k4t0za',
      title,
      summary: '',
      tags: [],
      status: 'raw',
      para_item_ids: [],
      updated_at: '2026-01-01T00:00:00.000Z',
    },
  },
});

const stores: Array<[string, () => DeadLetterStore]> = [
  ['memory', () => createMemoryDeadLetterStore()],
  ['files', () => createFileDeadLetterStore(path.join(tempDir(), 'dead-letters'))],
];

describe.each(stores)('dead-letter store (%s)', (_name, make) => {
  it('lists per topic in order, drops, and hands marked letters over once', async () => {
    const store = make();
    expect(await store.list()).toEqual([]);
    const a = await store.add({ topic: TOPICS.graphNodes, key: 'k1', value: { n: 1 }, error: 'boom', group: 'g' });
    const b = await store.add({ topic: TOPICS.graphNodes, key: 'k2', value: { n: 2 }, error: 'boom' });
    await store.add({ topic: TOPICS.graphLinks, key: 'k3', value: { n: 3 }, error: 'bad' });
    expect((await store.list(TOPICS.graphNodes)).map((l) => l.value)).toEqual([{ n: 1 }, { n: 2 }]);
    expect(await store.list(TOPICS.graphNodes)).toEqual([a, b]);
    expect(a).toMatchObject({ key: 'k1', error: 'boom', group: 'g', topic: TOPICS.graphNodes });
    expect(Date.parse(a.failed_at)).not.toBeNaN();

    expect(await store.replay(TOPICS.graphNodes)).toBe(2);
    expect(await store.list(TOPICS.graphNodes)).toEqual([]);
    expect((await store.takeReplays()).map((l) => l.key)).toEqual(['k1', 'k2']);
    expect(await store.takeReplays()).toEqual([]);

    expect(await store.drop(TOPICS.graphLinks)).toBe(1);
    expect(await store.list()).toEqual([]);
  });

  it('keeps the order of letters made in the same millisecond', async () => {
    const store = make();
    const values = Array.from({ length: 40 }, (_, n) => ({ n }));
    await Promise.all(
      values.map((value) => store.add({ topic: TOPICS.graphNodes, key: 'k', value, error: 'e', group: 'g' })),
    );
    expect((await store.list(TOPICS.graphNodes)).map((l) => l.value)).toEqual(values);
  });
});

describe('memory bus dead letters', () => {
  it('a failing handler dead-letters into the store; a replay delivers it again', async () => {
    const store = createFileDeadLetterStore(path.join(tempDir(), 'dead-letters'));
    const bus = createMemoryBus(logger, { deadLetters: store, replayPollMs: 60_000 });
    let failing = true;
    const seen: string[] = [];
    await bus.subscribe({
      topic: TOPICS.graphNodes,
      group: 'g',
      maxAttempts: 2,
      handler: async (e) => {
        if (failing) throw new Error('projection down');
        if (e.type === 'node.created') seen.push(e.data.node.title);
      },
    });
    await bus.start();
    await bus.publish(TOPICS.graphNodes, [
      { key: tenant, value: event('kept') },
      { key: tenant, value: { not: 'an event' } },
    ]);
    await bus.drain();
    const letters = await store.list(TOPICS.graphNodes);
    expect(letters.map((l) => l.error)).toEqual([
      expect.stringContaining('projection down'),
      expect.stringMatching(/^invalid event/),
    ]);
    expect(letters[0]).toMatchObject({ group: 'g', key: tenant });

    failing = false;
    expect(await store.replay(TOPICS.graphNodes)).toBe(2);
    expect(await bus.replayDeadLetters()).toBe(2);
    await bus.drain();
    expect(seen).toEqual(['kept']);
    // The invalid one failed again and is back; the other is gone for good.
    expect((await store.list(TOPICS.graphNodes)).map((l) => l.value)).toEqual([{ not: 'an event' }]);
    await bus.stop();
  });

  it('persists across a restart: letters marked while stopped are delivered at start', async () => {
    const dir = path.join(tempDir(), 'dead-letters');
    const first = createMemoryBus(logger, { deadLetters: createFileDeadLetterStore(dir) });
    await first.subscribe({
      topic: TOPICS.graphNodes,
      group: 'g',
      maxAttempts: 1,
      handler: async () => {
        throw new Error('down');
      },
    });
    await first.publish(TOPICS.graphNodes, [{ key: tenant, value: event('late') }]);
    await first.stop();
    expect(readdirSync(dir).filter((f) => f.endsWith('.json'))).toHaveLength(1);
    // The dlq tool, from another process: a fresh store over the same folder.
    expect(await createFileDeadLetterStore(dir).replay(TOPICS.graphNodes)).toBe(1);

    const second = createMemoryBus(logger, { deadLetters: createFileDeadLetterStore(dir) });
    const seen: string[] = [];
    await second.subscribe({
      topic: TOPICS.graphNodes,
      group: 'g',
      handler: async (e) => void seen.push(e.type === 'node.created' ? e.data.node.title : ''),
    });
    await second.start();
    await second.drain();
    expect(seen).toEqual(['late']);
    expect(await second.deadLetters.list()).toEqual([]);
    await second.stop();
  });
});
