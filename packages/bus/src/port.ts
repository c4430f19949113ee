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
  /**
   * Told true once the subscription receives every event published from then on (in-process
   * at once; on Kafka when its consumer has joined the group, been assigned its partitions
   * and resolved where it starts reading), and false when that stops holding (a rebalance,
   * a crash, the bus stopping). A live feed that caches on the strength of its events (the
   * gateway's API keys) trusts its cache only while live.
   */
  onLive?: (live: boolean) => void;
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
