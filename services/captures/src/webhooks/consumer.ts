import { TOPICS, type Topic } from '@kg/contracts';
import type { EventBus } from '@kg/bus';
import { insertDeliveries } from '../store/webhooks';
import type { WebhooksContext } from './context';
import { deliveryOf, fromBusEvent, fromCaptureChange, type Outgoing } from './payloads';

/** The consumer group of webhook fan-out: every event of these topics once per service. */
export const WEBHOOKS_GROUP = 'captures-webhooks';

/**
 * Turns one event into a delivery per enabled endpoint of its tenant subscribed to its type.
 * Idempotent: a delivery is unique per endpoint and message id, so an event delivered twice by
 * the bus (a redelivery after a crash) queues nothing new.
 */
export async function fanOut(ctx: WebhooksContext, tenantId: string, message: Outgoing | null): Promise<number> {
  if (!message || message.type === 'webhook.test') return 0;
  const endpoints = await ctx.subscribers.of(tenantId, message.type);
  if (endpoints.length === 0) return 0;
  const now = ctx.now();
  const added = await insertDeliveries(
    ctx.db,
    endpoints.map((e) => deliveryOf(tenantId, e.id, message, now)),
  );
  if (added > 0) ctx.wake();
  return added;
}

/** Subscribes the fan-out to every topic whose events can be delivered. */
export async function subscribeWebhookEvents(bus: EventBus, ctx: WebhooksContext): Promise<void> {
  const subscribe = <T extends Topic>(topic: T, handler: Parameters<typeof bus.subscribe<T>>[0]['handler']) =>
    bus.subscribe({ topic, group: WEBHOOKS_GROUP, maxAttempts: 10, handler });
  await subscribe(TOPICS.captureChanges, async (event) => {
    await fanOut(ctx, event.tenant_id, fromCaptureChange(event));
  });
  await subscribe(TOPICS.graphNodes, async (event) => {
    await fanOut(ctx, event.tenant_id, fromBusEvent(event));
  });
  await subscribe(TOPICS.graphLinks, async (event) => {
    await fanOut(ctx, event.tenant_id, fromBusEvent(event));
  });
  await subscribe(TOPICS.graphProposals, async (event) => {
    await fanOut(ctx, event.tenant_id, fromBusEvent(event));
  });
  await subscribe(TOPICS.paraItems, async (event) => {
    await fanOut(ctx, event.tenant_id, fromBusEvent(event));
  });
}
