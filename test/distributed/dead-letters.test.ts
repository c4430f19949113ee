import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { Kafka, logLevel } from 'kafkajs';
import { TOPICS, type NodeEvent } from '@kg/contracts';
import { api, createNode, newTenant } from '../e2e/support/client';
import { eventually, identityOf, searchAs } from './support/cluster-api';

describe('dead letters on Kafka', () => {
  it('a message no consumer can read goes to <topic>.dlq, and consumption carries on', async () => {
    const kafka = new Kafka({
      clientId: 'dlq-test',
      brokers: inject('kafkaBrokers').split(','),
      logLevel: logLevel.NOTHING,
    });
    const producer = kafka.producer();
    const consumer = kafka.consumer({ groupId: `dlq-test-${randomUUID()}` });
    const marker = `poison-${randomUUID()}`;
    try {
      await producer.connect();
      await producer.send({
        topic: TOPICS.graphNodes,
        messages: [{ key: marker, value: `{"not": "an event", "marker": "${marker}"}` }],
      });
      await consumer.connect();
      await consumer.subscribe({ topic: `${TOPICS.graphNodes}.dlq`, fromBeginning: true });
      const seen: Array<{ key: string; error: string }> = [];
      await consumer.run({
        eachMessage: async ({ message }) => {
          seen.push({ key: message.key?.toString() ?? '', error: message.headers?.['error']?.toString() ?? '' });
        },
      });
      const dead = await eventually(async () => seen.find((m) => m.key === marker), 60_000, 250);
      expect(dead.error).toMatch(/invalid event/);
    } finally {
      await consumer.disconnect();
      await producer.disconnect();
    }
    const s = await newTenant('after-poison');
    const node = await createNode(s.bearer, { title: 'after the poison message' });
    const search = searchAs(identityOf(s.access_token));
    await eventually(() => search.documents.get({ node_id: node.id }).catch(() => undefined), 30_000);
  }, 120_000);

  it('npm run dlq lists, drops and replays <topic>.dlq on Kafka', async () => {
    const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
    /** The tool as an operator runs it, in its own process, pointed at the cluster's brokers. */
    const dlq = async (...args: string[]) => {
      const { stdout, stderr } = await promisify(execFile)(
        process.execPath,
        ['--import', 'tsx', 'scripts/dlq/main.ts', ...args],
        { cwd: root, env: { PATH: process.env['PATH'] ?? '', KAFKA_BROKERS: inject('kafkaBrokers') }, timeout: 60_000 },
      );
      return {
        letters: stdout
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l) as Record<string, any>),
        stderr,
      };
    };
    const kafka = new Kafka({
      clientId: 'dlq-tool-test',
      brokers: inject('kafkaBrokers').split(','),
      logLevel: logLevel.NOTHING,
    });
    const producer = kafka.producer();
    await producer.connect();
    const deadLetter = (key: string, value: string, error: string) =>
      producer.send({
        topic: `${TOPICS.graphNodes}.dlq`,
        messages: [
          { key, value, headers: { error, 'original-topic': TOPICS.graphNodes, group: 'search.node-events' } },
        ],
      });
    try {
      await dlq('drop', TOPICS.graphNodes); // whatever earlier tests left
      expect((await dlq('list', TOPICS.graphNodes)).letters).toEqual([]);

      const marker = `poison-${randomUUID()}`;
      await deadLetter(marker, '{"not":"an event"}', 'invalid event: test');
      const listed = await dlq('list', `${TOPICS.graphNodes}.dlq`);
      expect(listed.letters).toMatchObject([
        {
          key: marker,
          topic: TOPICS.graphNodes,
          value: { not: 'an event' },
          error: 'invalid event: test',
          group: 'search.node-events',
        },
      ]);
      expect(listed.letters[0]!['id']).toMatch(/^\d+:\d+$/);
      expect((await dlq('drop', TOPICS.graphNodes)).stderr).toContain('1 dead letter(s) of kg.graph.nodes.v1 dropped');
      expect((await dlq('list', TOPICS.graphNodes)).letters).toEqual([]);

      // A valid event that once failed (say, the projection was down): replay delivers it.
      const s = await newTenant('dlq-replay');
      const node = await createNode(s.bearer, { title: 'before the replay' });
      const search = searchAs(identityOf(s.access_token));
      await eventually(() => search.documents.get({ node_id: node.id }).catch(() => undefined), 30_000);
      const event: NodeEvent = {
        id: `evt_${randomUUID().replace(/-/g, '').slice(0, 26)}`,
        type: 'node.updated',
        tenant_id: identityOf(s.access_token).tenantId,
        occurred_at: new Date().toISOString(),
        version: 1_000_000,
        data: {
          node: {
            id: node.id,
            title: 'from the dead letters',
            summary: '',
            tags: [],
            status: 'raw',
            para_item_ids: [],
            updated_at: new Date().toISOString(),
          },
          changed: ['title'],
        },
      };
      await deadLetter(event.tenant_id, JSON.stringify(event), 'Error: projection down');
      expect((await dlq('list', TOPICS.graphNodes)).letters.map((l) => l['value'])).toEqual([event]);
      expect((await dlq('replay', TOPICS.graphNodes)).stderr).toContain(
        '1 dead letter(s) republished to kg.graph.nodes.v1',
      );
      const replayed = await eventually(async () => {
        const doc = await search.documents.get({ node_id: node.id });
        return doc.title === 'from the dead letters' && doc;
      }, 30_000);
      expect(replayed.title).toBe('from the dead letters');
      expect((await dlq('list', TOPICS.graphNodes)).letters).toEqual([]);
      // The graph itself is untouched: only the projection saw the replayed event.
      expect((await api('GET', `/nodes/${node.id}`, { auth: s.bearer })).body.title).toBe('before the replay');
    } finally {
      await producer.disconnect();
    }
  }, 240_000);
});
