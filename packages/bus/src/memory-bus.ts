import { EVENT_SCHEMAS, type Topic } from '@kg/contracts';
import type { Logger } from '@kg/logger';
import type { BusMessage, EventBus, Subscription } from './port';

interface Group {
  subscription: Subscription<Topic>;
  queue: Promise<void>;
}

/**
 * In-process bus for the one-process mode. Each consumer group handles messages one
 * at a time, in publish order, with bounded retries; a message that keeps failing is
 * kept as dead-lettered (and logged) rather than lost.
 */
export function createMemoryBus(
  logger: Logger,
): EventBus & { deadLetters: Array<{ topic: string; message: BusMessage; error: string }>; drain(): Promise<void> } {
  const groups = new Map<Topic, Group[]>();
  const deadLetters: Array<{ topic: string; message: BusMessage; error: string }> = [];

  async function deliver(group: Group, topic: Topic, message: BusMessage) {
    const { subscription } = group;
    const parsed = EVENT_SCHEMAS[topic].safeParse(message.value);
    if (!parsed.success) {
      deadLetters.push({ topic, message, error: 'invalid event: ' + parsed.error.message });
      logger.error({ topic, group: subscription.group }, 'invalid event dead-lettered');
      return;
    }
    const maxAttempts = subscription.maxAttempts ?? 3;
    for (let attempt = 1; attempt <= maxAttempts; attempt++) {
      try {
        await subscription.handler(parsed.data as never, { topic, key: message.key, attempt });
        return;
      } catch (err) {
        if (attempt === maxAttempts) {
          deadLetters.push({ topic, message, error: String(err) });
          logger.error({ err, topic, group: subscription.group }, 'event handler failed; dead-lettered');
        }
      }
    }
  }

  return {
    kind: 'memory',
    deadLetters,
    async publish(topic, messages) {
      for (const g of groups.get(topic) ?? []) {
        for (const m of messages) g.queue = g.queue.then(() => deliver(g, topic, m));
      }
    },
    async subscribe(subscription) {
      const list = groups.get(subscription.topic) ?? [];
      list.push({ subscription: subscription as unknown as Subscription<Topic>, queue: Promise.resolve() });
      groups.set(subscription.topic, list);
    },
    async start() {},
    async stop() {
      await this.drain();
    },
    async ready() {
      return true;
    },
    async drain() {
      await Promise.all([...groups.values()].flat().map((g) => g.queue));
    },
  };
}
