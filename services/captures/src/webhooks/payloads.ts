import type { CaptureChangeEvent, WebhookDeliveredType, WebhookEventType } from '@kg/contracts';
import { newId } from '@kg/db';

/** What one delivery carries: its `webhook-id`, its type, and the JSON body that is signed. */
export interface Outgoing {
  messageId: string;
  type: WebhookDeliveredType;
  occurredAt: Date;
  body: string;
}

/** A delivery of `message` to one endpoint, due now. */
export const deliveryOf = (tenantId: string, endpointId: string, message: Outgoing, now: Date) => ({
  id: newId('webhookDelivery'),
  tenantId,
  endpointId,
  messageId: message.messageId,
  eventType: message.type,
  body: message.body,
  occurredAt: message.occurredAt,
  nextAttemptAt: now,
  createdAt: now,
});

const outgoing = (messageId: string, type: WebhookDeliveredType, occurredAt: string, data: object): Outgoing => ({
  messageId,
  type,
  occurredAt: new Date(occurredAt),
  body: JSON.stringify({ type, timestamp: occurredAt, data }),
});

/**
 * A capture change as a webhook: `capture.processed` when a capture reaches `processed`,
 * `capture.failed` when it reaches `failed`; other changes are not delivered.
 */
export function fromCaptureChange(event: CaptureChangeEvent): Outgoing | null {
  if (event.type !== 'capture.changed') return null;
  const { status, previous_status: previous } = event.data;
  if (status === previous || (status !== 'processed' && status !== 'failed')) return null;
  return outgoing(event.id, `capture.${status}`, event.occurred_at, {
    capture_id: event.data.capture_id,
    status,
    node_ids: event.data.node_ids,
    error: event.data.error,
  });
}

/**
 * node.created|updated|deleted, links.changed, proposal.created and para.item.changed: the
 * event's data as it is on the bus, with its `version` (the order of changes to one record).
 */
export function fromBusEvent(event: {
  id: string;
  type: WebhookEventType;
  occurred_at: string;
  version?: number;
  data: object;
}): Outgoing {
  return outgoing(event.id, event.type, event.occurred_at, { ...event.data, version: event.version ?? null });
}

/** The body of POST /webhooks/:id/test. */
export function testMessage(messageId: string, endpointId: string, at: Date): Outgoing {
  return outgoing(messageId, 'webhook.test', at.toISOString(), {
    endpoint_id: endpointId,
    message: 'A test event from Knowledge Graph: the endpoint is reachable and its signatures verify.',
  });
}
