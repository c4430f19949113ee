import { Kafka, logLevel, type Consumer, type KafkaMessage, type Producer } from 'kafkajs';
import { EVENT_SCHEMAS, TOPICS, type Topic } from '@kg/contracts';
import { inBackground } from '@kg/db';
import type { Logger } from '@kg/logger';
import { deadLetterTopic, type EventBus, type Subscription } from './port';
import { topicsToCreate, type KafkaConnection } from './kafka-options';
import './kafkajs-idle-fix'; // before any client: kafkajs 2.2.4 spins while idle

/** How often a consumer heartbeats, also while a handler runs. */
const HEARTBEAT_MS = 3000;

export interface KafkaBusOptions extends Partial<KafkaConnection> {
  brokers: string[];
  clientId: string;
  logger: Logger;
  /** Partitions of topics this bus creates. */
  partitions?: number;
  /** Backoff between handler attempts, in ms. */
  retryBackoffMs?: number;
}

/**
 * Kafka adapter (kafkajs). Messages are keyed by tenant id, so order holds per tenant.
 * One consumer per consumer group; offsets are committed manually, after the handler
 * succeeded or the message went to the dead-letter topic (`<topic>.dlq`) after bounded
 * retries. Handlers must be idempotent: delivery is at least once.
 */
export function createKafkaBus(opts: KafkaBusOptions): EventBus {
  const { logger } = opts;
  const kafka = new Kafka({
    clientId: opts.clientId,
    brokers: opts.brokers,
    ...(opts.ssl !== undefined ? { ssl: opts.ssl } : {}),
    ...(opts.sasl ? { sasl: opts.sasl } : {}),
    // kafkajs's own errors (a consumer that crashed, a group it cannot join) reach the service's
    // log as warnings; its chatter below ERROR does not.
    logLevel: logLevel.ERROR,
    logCreator:
      () =>
      ({ namespace, log }) => {
        const { message, groupId, error } = log as { message?: string; groupId?: string; error?: string };
        logger.warn({ kafka: { namespace, groupId, error } }, `kafka: ${message ?? 'error'}`);
      },
    connectionTimeout: 3000,
    requestTimeout: 10_000,
    retry: { retries: 3, initialRetryTime: 200, maxRetryTime: 2000 },
  });
  const admin = kafka.admin();
  const producer: Producer = kafka.producer({
    idempotent: true,
    maxInFlightRequests: 1,
    allowAutoTopicCreation: false,
  });
  const subscriptions: Array<Subscription<Topic>> = [];
  const consumers: Consumer[] = [];
  let producerConnected: Promise<void> | null = null;

  const connectProducer = () => {
    producerConnected ??= producer.connect().catch((err: unknown) => {
      producerConnected = null;
      throw err;
    });
    return producerConnected;
  };

  async function ensureTopics(): Promise<void> {
    await admin.connect();
    const wanted = Object.values(TOPICS).flatMap((t) => [t, deadLetterTopic(t)]);
    const missing = topicsToCreate(wanted, await admin.listTopics(), {
      partitions: opts.partitions ?? 3,
      replicationFactor: opts.replicationFactor ?? 1,
    });
    if (missing.length) await admin.createTopics({ waitForLeaders: true, topics: missing });
  }

  let stopped = true;
  const attached = new Set<string>();
  let starting: Promise<void> = Promise.resolve();

  /**
   * Attaches every consumer group not attached yet, in the background, retrying until it
   * succeeds: the broker may be down when a service starts, and writes must still succeed
   * (the outbox keeps events).
   */
  function reattach(): void {
    const previous = starting;
    starting = (async () => {
      await previous;
      for (let attempt = 1; !stopped; attempt++) {
        try {
          await attachConsumers();
          return;
        } catch (err) {
          logger.warn({ err: String(err), attempt }, 'kafka not reachable yet; retrying');
          await new Promise((r) => setTimeout(r, Math.min(5000, 500 * attempt)));
        }
      }
    })();
  }

  async function attachConsumers(): Promise<void> {
    await ensureTopics();
    await connectProducer();
    const groups = new Map<string, Array<Subscription<Topic>>>();
    for (const s of subscriptions) groups.set(s.group, [...(groups.get(s.group) ?? []), s]);
    for (const [group, subs] of groups) {
      if (attached.has(group)) continue;
      const consumer = kafka.consumer({ groupId: group, sessionTimeout: 15_000, heartbeatInterval: HEARTBEAT_MS });
      // A crash kafkajs does not restart from (a non-retriable error) would leave the group
      // without this consumer and the service none the wiser: attach a new one instead.
      // It may crash while run() below is still starting (a group coordinator still loading):
      // then it is never marked attached, or the new one would be skipped and nothing consumed.
      let crashed = false;
      consumer.on(consumer.events.CRASH, ({ payload }) => {
        if (payload.restart || stopped) return;
        crashed = true;
        logger.error({ err: String(payload.error), group }, 'kafka consumer crashed; attaching a new one');
        attached.delete(group);
        const at = consumers.indexOf(consumer);
        if (at >= 0) consumers.splice(at, 1);
        void consumer.disconnect().catch(() => undefined);
        reattach();
      });
      followLiveness(consumer, subs);
      await consumer.connect();
      for (const s of subs) await consumer.subscribe({ topic: s.topic, fromBeginning: s.fromBeginning ?? true });
      await consumer.run({
        autoCommit: false,
        partitionsConsumedConcurrently: 1,
        eachMessage: async ({ topic, partition, message, heartbeat }) => {
          // A handler may run long (a PARA job over thousands of nodes): the member keeps
          // heartbeating meanwhile, or the group would evict it and hand its partitions over mid-run.
          const beat = setInterval(() => void heartbeat().catch(() => undefined), HEARTBEAT_MS);
          try {
            for (const s of subs.filter((x) => x.topic === topic)) await handle(s, topic as Topic, message);
          } finally {
            clearInterval(beat);
          }
          await consumer.commitOffsets([{ topic, partition, offset: (BigInt(message.offset) + 1n).toString() }]);
        },
      });
      if (crashed) continue; // its crash handler attaches a new one once this pass ends
      attached.add(group);
      consumers.push(consumer);
    }
  }

  /**
   * Tells the group's subscriptions when they are live. A join assigns the partitions; the
   * first fetch after it has resolved where each one starts (for a new group reading from
   * the newest message: the end of the log as of then), so from that fetch on every event
   * published reaches the group. Anything that hands the partitions over or stops the
   * consumer ends that until the next join and fetch.
   */
  function followLiveness(consumer: Consumer, subs: Array<Subscription<Topic>>): void {
    const told = subs.filter((s) => s.onLive);
    if (!told.length) return;
    let joined = false;
    let live = false;
    const set = (next: boolean) => {
      if (next === live) return;
      live = next;
      for (const s of told) s.onLive!(next);
    };
    const { GROUP_JOIN, FETCH, REBALANCING, CRASH, STOP, DISCONNECT } = consumer.events;
    consumer.on(GROUP_JOIN, () => {
      joined = true;
    });
    consumer.on(FETCH, () => {
      if (joined) set(true);
    });
    for (const event of [REBALANCING, CRASH, STOP, DISCONNECT])
      consumer.on(event, () => {
        joined = false;
        set(false);
      });
  }

  async function handle(sub: Subscription<Topic>, topic: Topic, message: KafkaMessage): Promise<void> {
    const key = message.key?.toString() ?? '';
    const raw = message.value?.toString() ?? '';
    let event: unknown;
    try {
      event = EVENT_SCHEMAS[topic].parse(JSON.parse(raw));
    } catch (err) {
      await toDeadLetter(topic, message, `invalid event: ${String(err)}`, sub.group);
      return;
    }
    const maxAttempts = sub.maxAttempts ?? 5;
    for (let attempt = 1; ; attempt++) {
      try {
        await inBackground(() => sub.handler(event as never, { topic, key, attempt }));
        return;
      } catch (err) {
        if (attempt >= maxAttempts) {
          logger.error({ err, topic, group: sub.group }, 'handler failed; dead-lettering');
          await toDeadLetter(topic, message, String(err), sub.group);
          return;
        }
        await new Promise((r) => setTimeout(r, (opts.retryBackoffMs ?? 200) * attempt));
      }
    }
  }

  async function toDeadLetter(topic: string, message: KafkaMessage, error: string, group: string) {
    await connectProducer();
    await producer.send({
      topic: deadLetterTopic(topic),
      messages: [
        {
          key: message.key,
          value: message.value,
          headers: {
            error: error.slice(0, 1000),
            'original-topic': topic,
            group,
            'failed-at': new Date().toISOString(),
          },
        },
      ],
    });
  }

  return {
    kind: 'kafka',
    async publish(topic, messages) {
      await connectProducer();
      await producer.send({
        topic,
        acks: -1,
        messages: messages.map((m) => ({ key: m.key, value: JSON.stringify(m.value) })),
      });
    },
    async subscribe(subscription) {
      subscriptions.push(subscription as unknown as Subscription<Topic>);
    },
    async start() {
      stopped = false;
      reattach();
    },
    async stop() {
      stopped = true;
      await starting;
      // consumer.disconnect() lets the in-flight message finish and commit before leaving the group.
      await Promise.allSettled(consumers.map((c) => c.disconnect()));
      await Promise.allSettled([producer.disconnect(), admin.disconnect()]);
    },
    async ready() {
      try {
        await Promise.race([
          admin.describeCluster(),
          new Promise((_, reject) => setTimeout(() => reject(new Error('timeout')), 2000)),
        ]);
        return true;
      } catch {
        return false;
      }
    },
  };
}
