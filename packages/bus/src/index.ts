export type { EventBus, BusMessage, Subscription, HandlerMeta } from './port';
export { deadLetterTopic } from './port';
export { createMemoryBus } from './memory-bus';
export { createOutboxRelay, enqueueEvent, newEventId, type OutboxRelay } from './outbox';
export { createKafkaBus, type KafkaBusOptions } from './kafka-bus';
export { handleOnce } from './once';
