import { afterEach, describe, expect, it, vi } from 'vitest';
import { RequestQueueClass } from './kafkajs-idle-fix';

interface Queue {
  pending: Array<{ send(): void; expectResponse: boolean; correlationId: number }>;
  throttledUntil: number;
  throttleCheckTimeoutId: unknown;
  checkPendingRequests(): void;
  destroy(): void;
}
const logger = { debug() {}, info() {}, warn() {}, error() {} };
const queues: Queue[] = [];
const newQueue = (): Queue => {
  const Ctor = RequestQueueClass as unknown as new (opts: object) => Queue;
  const queue = new Ctor({
    maxInFlightRequests: null,
    requestTimeout: 30_000,
    enforceRequestTimeout: false,
    clientId: 'test',
    broker: 'broker:9092',
    logger,
  });
  queues.push(queue);
  return queue;
};
afterEach(() => {
  for (const queue of queues.splice(0)) queue.destroy();
});

describe("kafkajs's request queue (kafkajs-idle-fix.ts)", () => {
  it('stays asleep with nothing pending (kafkajs 2.2.4 re-checked every 1 ms for ever)', async () => {
    const queue = newQueue();
    const check = vi.spyOn(queue, 'checkPendingRequests');
    queue.checkPendingRequests();
    await new Promise((r) => setTimeout(r, 150));
    expect(check).toHaveBeenCalledTimes(1);
    expect(queue.throttleCheckTimeoutId).toBeNull();
  });

  it('sends a request held by the client-side throttle once the throttle ends, then sleeps', async () => {
    const queue = newQueue();
    const send = vi.fn();
    queue.throttledUntil = Date.now() + 40;
    queue.pending.push({ send, expectResponse: true, correlationId: 1 });
    queue.checkPendingRequests();
    expect(send).not.toHaveBeenCalled();
    await vi.waitFor(() => expect(send).toHaveBeenCalledOnce(), { timeout: 2_000, interval: 10 });
    expect(queue.pending).toEqual([]);
    expect(queue.throttleCheckTimeoutId).toBeNull();
  });
});
