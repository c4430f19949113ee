import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { TOPICS } from '@kg/contracts';
import { createFileDeadLetterStore } from '@kg/bus';
import { dlqConfigSchema, runDlq } from './run';

const dataDir = mkdtempSync(path.join(tmpdir(), 'kg-dlq-tool-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));
const config = dlqConfigSchema.parse({ DATA_DIR: dataDir });

async function dlq(...argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runDlq(argv, config, { out: (l) => out.push(l), err: (l) => err.push(l) });
  return { code, out, err: err.join('\n') };
}

describe('npm run dlq (embedded mode: files under DATA_DIR)', () => {
  it('lists, marks for replay and drops the dead letters the server stored', async () => {
    const store = createFileDeadLetterStore(path.join(dataDir, 'dead-letters'));
    await store.add({ topic: TOPICS.graphNodes, key: 'tnt_a', value: { id: 'evt_1' }, error: 'boom', group: 'search' });
    await store.add({ topic: TOPICS.graphNodes, key: 'tnt_b', value: { id: 'evt_2' }, error: 'boom' });
    await store.add({ topic: TOPICS.graphLinks, key: 'tnt_c', value: { id: 'evt_3' }, error: 'bad' });

    const listed = await dlq('list', `${TOPICS.graphNodes}.dlq`);
    expect(listed.code).toBe(0);
    expect(listed.out.map((l) => JSON.parse(l) as { key: string; error: string })).toMatchObject([
      { key: 'tnt_a', error: 'boom', group: 'search', topic: TOPICS.graphNodes },
      { key: 'tnt_b', error: 'boom' },
    ]);
    expect(listed.err).toContain('2 dead letter(s)');

    const replayed = await dlq('replay', TOPICS.graphNodes);
    expect(replayed).toMatchObject({ code: 0, out: [] });
    expect(replayed.err).toContain('2 dead letter(s) of kg.graph.nodes.v1 marked for replay');
    expect(readdirSync(path.join(dataDir, 'dead-letters', 'replay'))).toHaveLength(2);
    expect((await dlq('list', TOPICS.graphNodes)).out).toEqual([]);
    expect((await store.takeReplays()).map((l) => l.key)).toEqual(['tnt_a', 'tnt_b']);

    expect((await dlq('drop', TOPICS.graphLinks)).err).toContain('1 dead letter(s) of kg.graph.links.v1 dropped');
    expect(await store.list()).toEqual([]);
  });

  it("reads the services' Kafka settings: brokers optional (none = embedded), SASL checked", () => {
    expect(dlqConfigSchema.parse({}).KAFKA_BROKERS).toEqual([]);
    expect(dlqConfigSchema.parse({ KAFKA_BROKERS: 'a:9092,b:9092', KAFKA_SSL: 'true' })).toMatchObject({
      KAFKA_BROKERS: ['a:9092', 'b:9092'],
      KAFKA_SSL: true,
    });
    expect(dlqConfigSchema.safeParse({ KAFKA_BROKERS: 'a:9092', KAFKA_SASL_MECHANISM: 'plain' }).success).toBe(false);
  });

  it('refuses an unknown action or topic with the usage (exit 2)', async () => {
    for (const argv of [
      [],
      ['list'],
      ['purge', TOPICS.graphNodes],
      ['list', 'kg.nope'],
      ['list', TOPICS.graphNodes, 'x'],
    ]) {
      const r = await dlq(...argv);
      expect(r.code).toBe(2);
      expect(r.err).toContain('usage: npm run dlq');
    }
  });
});
