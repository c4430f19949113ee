import { EVENT_SCHEMAS, type Topic } from '@kg/contracts';
import { inBackground } from '@kg/db';
import type { Logger } from '@kg/logger';
import { createMemoryDeadLetterStore, type DeadLetterStore } from './dead-letters';
import type { BusMessage, EventBus, Subscription } from './port';

interface Group {
  subscription: Subscription<Topic>;
  queue: Promise<void>;
}

export interface MemoryBusOptions {
  /** Where dead letters go: files under DATA_DIR in the embedded server; memory by default. */
  deadLetters?: DeadLetterStore;
  /** How often letters marked for replay (`npm run dlq -- replay`) are picked up; default 2 s. */
  replayPollMs?: number;
}

export type MemoryBus = EventBus & {
  deadLetters: DeadLetterStore;
  /** Resolves once every queued message has been handled. */
  drain(): Promise<void>;
  /** Publishes letters marked for replay again to their topic; returns how many. */
  replayDeadLetters(): Promise<number>;
};

/**
 * In-process bus for the one-process mode. Each consumer group handles messages one
 * at a time, in publish order, with bounded retries; a message that keeps failing goes
 * to the dead-letter store (and the log) rather than being lost. Letters marked for
 * replay are published again on start and then every `replayPollMs`.
 */
export function createMemoryBus(logger: Logger, opts: MemoryBusOptions = {}): MemoryBus {
  const groups = new Map<Topic, Group[]>();
  const deadLetters = opts.deadLetters ?? createMemoryDeadLetterStore();
  let timer: NodeJS.Timeout | null = null;

  async function deadLetter(topic: Topic, group: string, message: BusMessage, error: string) {
    try {
      await deadLetters.add({ topic, key: message.key, value: message.value, error: error.slice(0, 1000), group });
    } catch (err) {
      logger.error({ err, topic, group }, 'could not store a dead letter');
    }
  }

  async function deliver(group: Group, topic: Topic, message: BusMessage) {
    const { subscription } = group;
    const parsed = EVENT_SCHEMAS[topic].safeParse(message.value);
    if (!parsed.success) {
      await deadLetter(topic, subscription.group, message, 'invalid event: ' + parsed.error.message);
      logger.error({ topic, group: subscription.group }, 'invalid event dead-lettered');
      return;
    }
    const maxAttempts = subscription.maxAttempts ?? 3;
    for (let attempt = 1; attempt <= maxAttempts; attempt++) {
      try {
        // Consumers are background work, whoever published (the database serves requests first).
        await inBackground(() => subscription.handler(parsed.data as never, { topic, key: message.key, attempt }));
        return;
      } catch (err) {
        if (attempt === maxAttempts) {
          await deadLetter(topic, subscription.group, message, String(err));
          logger.error({ err, topic, group: subscription.group }, 'event handler failed; dead-lettered');
        }
      }
    }
  }

  async function publish(topic: Topic, messages: BusMessage[]) {
    for (const g of groups.get(topic) ?? []) {
      for (const m of messages) g.queue = g.queue.then(() => deliver(g, topic, m));
    }
  }

  let replaying: Promise<number> | null = null;
  function replayDeadLetters(): Promise<number> {
    replaying ??= (async () => {
      const letters = await deadLetters.takeReplays();
      for (const l of letters) await publish(l.topic as Topic, [{ key: l.key, value: l.value }]);
      if (letters.length) logger.info({ count: letters.length }, 'dead letters replayed');
      return letters.length;
    })().finally(() => (replaying = null));
    return replaying;
  }

  const bus: MemoryBus = {
    kind: 'memory',
    deadLetters,
    publish,
    async subscribe(subscription) {
      const list = groups.get(subscription.topic) ?? [];
      list.push({ subscription: subscription as unknown as Subscription<Topic>, queue: Promise.resolve() });
      groups.set(subscription.topic, list);
      // In-process delivery reaches every subscription from the moment it is added.
      subscription.onLive?.(true);
    },
    async start() {
      await replayDeadLetters().catch((err: unknown) => logger.error({ err }, 'dead-letter replay failed'));
      if (timer) return;
      timer = setInterval(() => {
        replayDeadLetters().catch((err: unknown) => logger.error({ err }, 'dead-letter replay failed'));
      }, opts.replayPollMs ?? 2000);
      timer.unref();
    },
    async stop() {
      if (timer) clearInterval(timer);
      timer = null;
      await replaying;
      await bus.drain();
    },
    async ready() {
      return true;
    },
    async drain() {
      await Promise.all([...groups.values()].flat().map((g) => g.queue));
    },
    replayDeadLetters,
  };
  return bus;
}
