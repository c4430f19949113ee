import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { Kafka, logLevel } from 'kafkajs';
import { TOPICS } from '@kg/contracts';
import { createNode, newTenant } from '../e2e/support/client';
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
});
