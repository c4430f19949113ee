import { afterEach, describe, expect, it, vi } from 'vitest';
import { TOPICS } from '@kg/contracts';
import { createLogger } from '@kg/logger';
import { kafkaConnection, topicsToCreate, type KafkaEnv } from './kafka-options';

const created = vi.hoisted(() => ({ clients: [] as unknown[], topics: [] as unknown[] }));

// A stand-in for kafkajs that records what the bus asks of it (no broker needed).
vi.mock('kafkajs', () => ({
  logLevel: { NOTHING: 0 },
  Kafka: class {
    constructor(config: unknown) {
      created.clients.push(config);
    }
    admin() {
      return {
        connect: async () => undefined,
        disconnect: async () => undefined,
        listTopics: async () => ['kg.graph.nodes.v1'],
        createTopics: async (req: { topics: unknown[] }) => {
          created.topics.push(...req.topics);
          throw new Error('stop here');
        },
      };
    }
    producer() {
      return { connect: async () => undefined, disconnect: async () => undefined };
    }
  },
}));

const base: KafkaEnv = { KAFKA_BROKERS: ['k1:9093', 'k2:9093'], KAFKA_SSL: false, KAFKA_REPLICATION_FACTOR: 1 };
const PEM = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';

describe('kafkaConnection (config to kafkajs options)', () => {
  it('plaintext by default: no ssl, no sasl', () => {
    const c = kafkaConnection(base);
    expect(c).toEqual({ brokers: ['k1:9093', 'k2:9093'], replicationFactor: 1 });
  });

  it('KAFKA_SSL turns TLS on with the system CAs; a CA pins it and implies TLS', () => {
    expect(kafkaConnection({ ...base, KAFKA_SSL: true }).ssl).toBe(true);
    expect(kafkaConnection({ ...base, KAFKA_SSL_CA: PEM }).ssl).toEqual({ ca: [PEM], rejectUnauthorized: true });
  });

  it.each(['plain', 'scram-sha-256', 'scram-sha-512'] as const)('SASL %s with username and password', (mechanism) => {
    const c = kafkaConnection({
      ...base,
      KAFKA_SSL: true,
      KAFKA_SASL_MECHANISM: mechanism,
      KAFKA_SASL_USERNAME: 'svc-graph',
      KAFKA_SASL_PASSWORD: 's3cret-pw',
      KAFKA_REPLICATION_FACTOR: 3,
    });
    expect(c).toEqual({
      brokers: base.KAFKA_BROKERS,
      ssl: true,
      sasl: { mechanism, username: 'svc-graph', password: 's3cret-pw' },
      replicationFactor: 3,
    });
  });

  it('refuses a mechanism without credentials and never echoes the password', () => {
    expect(() =>
      kafkaConnection({ ...base, KAFKA_SASL_MECHANISM: 'plain', KAFKA_SASL_PASSWORD: 'pw-visible?' }),
    ).toThrow(/KAFKA_SASL_USERNAME/);
    try {
      kafkaConnection({ ...base, KAFKA_SASL_MECHANISM: 'plain', KAFKA_SASL_PASSWORD: 'pw-visible?' });
    } catch (err) {
      expect(String(err)).not.toContain('pw-visible?');
    }
  });
});

describe('topics the bus creates', () => {
  afterEach(() => {
    created.clients.length = 0;
    created.topics.length = 0;
  });

  it('topicsToCreate gives every missing topic the partitions and replication factor', () => {
    expect(topicsToCreate(['a', 'a.dlq', 'b'], ['a'], { partitions: 6, replicationFactor: 3 })).toEqual([
      { topic: 'a.dlq', numPartitions: 6, replicationFactor: 3 },
      { topic: 'b', numPartitions: 6, replicationFactor: 3 },
    ]);
  });

  it('createKafkaBus hands TLS/SASL to kafkajs and creates topics and .dlq topics with the replication factor', async () => {
    // A fresh kafka-bus module, so it imports the stand-in even where another test file of the
    // same worker (no isolation) has loaded the real kafkajs already.
    vi.resetModules();
    const { createKafkaBus } = await import('./kafka-bus');
    const connection = kafkaConnection({
      ...base,
      KAFKA_SSL: true,
      KAFKA_SASL_MECHANISM: 'scram-sha-512',
      KAFKA_SASL_USERNAME: 'u',
      KAFKA_SASL_PASSWORD: 'p',
      KAFKA_REPLICATION_FACTOR: 3,
    });
    const bus = createKafkaBus({ ...connection, clientId: 'graph', logger: createLogger('test', 'silent') });
    expect(created.clients[0]).toMatchObject({
      clientId: 'graph',
      brokers: base.KAFKA_BROKERS,
      ssl: true,
      sasl: { mechanism: 'scram-sha-512', username: 'u', password: 'p' },
    });
    await bus.start();
    await vi.waitFor(() => expect(created.topics.length).toBeGreaterThan(0));
    await bus.stop();
    // Every topic and dead-letter topic but the one that exists, each with the replication factor.
    const wanted = Object.values(TOPICS).flatMap((t) => [t, `${t}.dlq`]);
    expect(created.topics).toEqual(
      wanted
        .filter((t) => t !== 'kg.graph.nodes.v1')
        .map((topic) => ({ topic, numPartitions: 3, replicationFactor: 3 })),
    );
  });
});
