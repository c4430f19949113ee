import { createRequire } from 'node:module';

/**
 * kafkajs 2.2.4 (its last release) spins while idle: after each check of its pending
 * requests, a broker connection's request queue schedules the next check whether or not
 * anything is pending, and with no throttling in force the delay is negative, so Node runs it
 * after 1 ms. Every connection wakes its process ~870 times a second: an idle service with a
 * producer and a consumer used 4-5 % of a core (measured with `npm run start:distributed`,
 * seven services at rest: ~35 % of a core between them, the broker itself 4.6 %).
 * Upstream: tulios/kafkajs#1556 and #1704, fix proposed in #1667 (open, unreleased).
 *
 * The fix, the same as #1667: a check is scheduled only while requests are pending: at the end
 * of the client-side throttle, or after CHECK_PENDING_REQUESTS_INTERVAL when it is not in force.
 * Every path that adds a pending request (`push`) or frees an in-flight slot (a response, a
 * timeout) already checks the queue itself, so nothing waits on a timer that is not there.
 *
 * Applied to kafkajs's own RequestQueue class when this module loads (kafka-bus.ts and
 * kafka-dead-letters.ts import it before making a client). kafkajs-idle-fix.test.ts fails if
 * kafkajs moves that class or changes its fields, so an upgrade cannot drop the fix silently.
 */
const CHECK_PENDING_REQUESTS_INTERVAL = 10;

interface RequestQueue {
  pending: unknown[];
  throttledUntil: number;
  throttleCheckTimeoutId: NodeJS.Timeout | null;
  checkPendingRequests(): void;
  scheduleCheckPendingRequests(): void;
}

type RequestQueueClass = { prototype: RequestQueue };

/** kafkajs's RequestQueue (CommonJS, the same module instance its brokers use). */
export const RequestQueueClass = createRequire(import.meta.url)(
  'kafkajs/src/network/requestQueue/index.js',
) as RequestQueueClass;

RequestQueueClass.prototype.scheduleCheckPendingRequests = function scheduleCheckPendingRequests(this: RequestQueue) {
  if (this.throttleCheckTimeoutId || this.pending.length === 0) return;
  const throttled = this.throttledUntil - Date.now();
  this.throttleCheckTimeoutId = setTimeout(
    () => {
      this.throttleCheckTimeoutId = null;
      this.checkPendingRequests();
    },
    throttled > 0 ? throttled : CHECK_PENDING_REQUESTS_INTERVAL,
  );
};
