import { describe, expect, it, vi } from 'vitest';
import { TOPICS } from '@kg/contracts';
import { createLogger } from '@kg/logger';

interface FakeConsumer {
  groupId: string;
  ran: boolean;
  disconnected: boolean;
}

const kafka = vi.hoisted(() => ({
  consumers: [] as FakeConsumer[],
  /** Groups whose next consumer crashes while run() is starting, as with a coordinator still loading. */
  crashOnRun: new Set<string>(),
}));

// A stand-in for kafkajs: a broker that answers, and consumers that may crash in run().
vi.mock('kafkajs', () => ({
  logLevel: { NOTHING: 0 },
  Kafka: class {
    admin() {
      return {
        connect: async () => undefined,
        disconnect: async () => undefined,
        listTopics: async () => [],
        createTopics: async () => true,
      };
    }
    producer() {
      return { connect: async () => undefined, disconnect: async () => undefined, send: async () => [] };
    }
    consumer({ groupId }: { groupId: string }) {
      const listeners = new Map<string, Array<(e: unknown) => void>>();
      const state: FakeConsumer = { groupId, ran: false, disconnected: false };
      kafka.consumers.push(state);
      const emit = (event: string, payload: unknown) => listeners.get(event)?.forEach((fn) => fn({ payload }));
      return {
        events: {
          GROUP_JOIN: 'join',
          FETCH: 'fetch',
          REBALANCING: 'rebalancing',
          CRASH: 'crash',
          STOP: 'stop',
          DISCONNECT: 'disconnect',
        },
        on: (event: string, fn: (e: unknown) => void) => listeners.set(event, [...(listeners.get(event) ?? []), fn]),
        connect: async () => undefined,
        subscribe: async () => undefined,
        run: async () => {
          if (kafka.crashOnRun.delete(groupId)) {
            emit('crash', { error: new Error('KafkaJSGroupCoordinatorNotFound'), restart: false });
            return;
          }
          state.ran = true;
        },
        disconnect: async () => {
          state.disconnected = true;
        },
      };
    }
  },
}));

describe('kafka bus: a consumer that crashes while it starts', () => {
  it('is replaced by a new one, which stays attached; the other groups keep theirs', async () => {
    vi.resetModules(); // a fresh kafka-bus module, importing the stand-in
    const { createKafkaBus } = await import('./kafka-bus');
    const bus = createKafkaBus({ brokers: ['k:9092'], clientId: 'test', logger: createLogger('test', 'silent') });
    const handler = async () => undefined;
    await bus.subscribe({ topic: TOPICS.graphNodes, group: 'first', handler });
    await bus.subscribe({ topic: TOPICS.graphNodes, group: 'second', handler });
    kafka.crashOnRun.add('second');
    await bus.start();
    await vi.waitFor(() =>
      expect(kafka.consumers.filter((c) => c.ran).map((c) => c.groupId)).toEqual(['first', 'second']),
    );
    const [first, crashed, replacement] = kafka.consumers;
    expect(kafka.consumers.map((c) => c.groupId)).toEqual(['first', 'second', 'second']);
    expect(crashed).toMatchObject({ ran: false, disconnected: true });
    await bus.stop();
    // Both live consumers were still the bus's: stop left their groups.
    expect(first!.disconnected).toBe(true);
    expect(replacement!.disconnected).toBe(true);
  });
});
