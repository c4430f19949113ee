import { TOPICS, type CaptureChangeEvent, type NodeEvent } from '@kg/contracts';
import type { EventBus } from '@kg/bus';
import type { Logger } from '@kg/logger';

/** What GET /events streams: the tenant's capture status changes and node changes, as the bus carries them. */
export type LiveEvent = CaptureChangeEvent | NodeEvent;
type Listener = (event: LiveEvent) => void;

/**
 * The gateway's fan-out of live events to its open event streams, per tenant. It holds no
 * history: a stream sees what happens while it is open (clients re-read state on reconnect).
 */
export interface EventFeed {
  publish(event: LiveEvent): void;
  /** Listens to one tenant's events; returns the function that stops listening. */
  subscribe(tenantId: string, listener: Listener): () => void;
  /** Open streams (for metrics and tests). */
  size(): number;
}

export function createEventFeed(): EventFeed {
  const byTenant = new Map<string, Set<Listener>>();
  return {
    publish(event) {
      for (const listener of byTenant.get(event.tenant_id) ?? []) listener(event);
    },
    subscribe(tenantId, listener) {
      const set = byTenant.get(tenantId) ?? new Set<Listener>();
      set.add(listener);
      byTenant.set(tenantId, set);
      return () => {
        set.delete(listener);
        if (set.size === 0) byTenant.delete(tenantId);
      };
    },
    size: () => [...byTenant.values()].reduce((n, s) => n + s.size, 0),
  };
}

/**
 * Feeds `feed` from the bus: capture changes and node changes. `group` is the consumer group;
 * in the distributed mode each gateway replica uses its own (every replica must see every
 * event for the streams it holds) starting at the newest message.
 */
export async function feedFromBus(bus: EventBus, feed: EventFeed, group: string, logger: Logger): Promise<void> {
  const deliver = async (event: LiveEvent) => {
    try {
      feed.publish(event);
    } catch (err) {
      logger.warn({ err }, 'live event not delivered');
    }
  };
  await bus.subscribe({ topic: TOPICS.captureChanges, group, handler: deliver, fromBeginning: false, maxAttempts: 1 });
  await bus.subscribe({ topic: TOPICS.graphNodes, group, handler: deliver, fromBeginning: false, maxAttempts: 1 });
}
