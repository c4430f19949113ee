import type { EventOf, Topic } from '@kg/contracts';

export interface BusMessage {
  key: string;
  value: unknown;
}

export interface HandlerMeta {
  topic: Topic;
  key: string;
  attempt: number;
}

export interface Subscription<T extends Topic> {
  topic: T;
  /** Consumer group: one per consuming service, so each service sees every event once. */
  group: string;
  handler: (event: EventOf<T>, meta: HandlerMeta) => Promise<void>;
  /** Attempts before the message goes to the dead-letter topic. */
  maxAttempts?: number;
  /**
   * Where a new consumer group starts: at the oldest message (default: a service must see
   * every event) or, with false, at the newest (a per-replica live feed that only wants what
   * happens from now on).
   */
  fromBeginning?: boolean;
}

/** The event bus port. Adapters: in-process (embedded mode) and Kafka (distributed mode). */
export interface EventBus {
  readonly kind: 'memory' | 'kafka';
  publish(topic: Topic, messages: BusMessage[]): Promise<void>;
  subscribe<T extends Topic>(subscription: Subscription<T>): Promise<void>;
  start(): Promise<void>;
  stop(): Promise<void>;
  ready(): Promise<boolean>;
}

export const deadLetterTopic = (topic: string) => `${topic}.dlq`;
