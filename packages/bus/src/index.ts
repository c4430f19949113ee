export type { EventBus, BusMessage, Subscription, HandlerMeta } from './port';
export { deadLetterTopic } from './port';
export { createMemoryBus, type MemoryBus, type MemoryBusOptions } from './memory-bus';
export {
  createFileDeadLetterStore,
  createMemoryDeadLetterStore,
  type DeadLetter,
  type DeadLetterStore,
  type NewDeadLetter,
} from './dead-letters';
export { createOutboxRelay, enqueueEvent, enqueuedIn, newEventId, type OutboxRelay } from './outbox';
export { createKafkaBus, type KafkaBusOptions } from './kafka-bus';
export { createKafkaDeadLetters, DLQ_TOOL_GROUP, type KafkaDeadLetters } from './kafka-dead-letters';
export { kafkaConnection, topicsToCreate, type KafkaConnection, type KafkaEnv } from './kafka-options';
export { handleOnce } from './once';
