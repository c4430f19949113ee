import { z } from 'zod';
import { Timestamp, text } from './common';
import { idSchema } from './ids';

/**
 * Signed outbound webhooks (Standard Webhooks: `webhook-id`, `webhook-timestamp`,
 * `webhook-signature`). A tenant registers endpoints; every event of a subscribed type is
 * delivered to each of them at least once, retried with backoff, and logged per attempt.
 */

/** The event types an endpoint can subscribe to. */
export const WEBHOOK_EVENT_TYPES = [
  'capture.processed',
  'capture.failed',
  'node.created',
  'node.updated',
  'node.deleted',
  'links.changed',
  'proposal.created',
  'para.item.changed',
] as const;
export const WebhookEventType = z.enum(WEBHOOK_EVENT_TYPES).meta({ id: 'WebhookEventType' });
export type WebhookEventType = z.infer<typeof WebhookEventType>;

/** What a delivery carries: a subscribed type, or `webhook.test` (POST /webhooks/:id/test). */
export const WebhookDeliveredType = z.union([WebhookEventType, z.literal('webhook.test')]);
export type WebhookDeliveredType = z.infer<typeof WebhookDeliveredType>;

export const WebhookId = idSchema('webhook').meta({ description: 'Webhook endpoint identifier, e.g. wh_01jd…' });
export const WebhookDeliveryId = idSchema('webhookDelivery').meta({
  description: 'One event on its way to one endpoint, e.g. whd_01jd…',
});

const HTTP_URL = /^https?:\/\/[^\s/?#]+[^\s]*$/i;
const EndpointUrl = text({ max: 2048 })
  .regex(HTTP_URL, 'must be an http:// or https:// URL')
  // The pattern only shapes it; the URL is parsed (WHATWG) to be delivered to, so it must parse.
  .refine((url) => URL.canParse(url), 'must be a valid URL (its host cannot be parsed)')
  .meta({
    description:
      'Where events are POSTed. Its host must resolve to public addresses only (no private, loopback or link-local address unless the server allow-lists it); it is checked at every delivery. Redirects are not followed.',
    example: 'https://example.com/hooks/kg',
  });
const EventTypes = z
  .array(WebhookEventType)
  .min(1)
  .max(WEBHOOK_EVENT_TYPES.length)
  .refine((types) => new Set(types).size === types.length, 'must not repeat a type')
  .meta({ description: 'The event types delivered to this endpoint, each once', uniqueItems: true });

export const CreateWebhookInput = z
  .object({
    url: EndpointUrl,
    event_types: EventTypes,
    description: text({ max: 200, trim: true }).optional(),
    enabled: z.boolean().default(true),
  })
  .strict()
  .meta({ id: 'CreateWebhookInput' });
export type CreateWebhookInput = z.infer<typeof CreateWebhookInput>;

export const UpdateWebhookInput = z
  .object({
    url: EndpointUrl.optional(),
    event_types: EventTypes.optional(),
    description: text({ max: 200, trim: true }).nullable().optional(),
    enabled: z.boolean().optional().meta({
      description:
        'false pauses deliveries (they wait, and resume when enabled again); true re-enables an endpoint the server disabled',
    }),
  })
  .strict()
  .refine((v) => Object.keys(v).length > 0, 'name at least one field to change')
  .meta({ id: 'UpdateWebhookInput', minProperties: 1 });
export type UpdateWebhookInput = z.infer<typeof UpdateWebhookInput>;

export const WebhookDisabledReason = z.enum(['by_user', 'gone', 'failing']).meta({
  description:
    '`by_user`: paused through the API; `gone`: the receiver answered 410; `failing`: every attempt failed for the failure window (24 h by default)',
});

export const Webhook = z
  .object({
    id: WebhookId,
    url: z.string(),
    description: z.string().nullable(),
    event_types: z.array(WebhookEventType),
    enabled: z.boolean(),
    disabled_reason: WebhookDisabledReason.nullable(),
    disabled_at: Timestamp.nullable(),
    failing_since: Timestamp.nullable().meta({
      description: 'Start of the current run of failed attempts (null: the last attempt succeeded)',
    }),
    secret_prefix: z.string().meta({ description: 'First characters of the signing secret, to recognise it' }),
    previous_secret_expires_at: Timestamp.nullable().meta({
      description: 'After a rotation: until when deliveries are also signed with the previous secret',
    }),
    pending_deliveries: z.number().int().min(0),
    created_at: Timestamp,
    updated_at: Timestamp,
  })
  .meta({ id: 'Webhook' });
export type Webhook = z.infer<typeof Webhook>;

const Secret = z.string().meta({
  description: 'The signing secret (`whsec_` + base64), for the Standard Webhooks libraries. Returned only here, once.',
});
export const WebhookCreated = Webhook.extend({ secret: Secret }).meta({ id: 'WebhookCreated' });
export type WebhookCreated = z.infer<typeof WebhookCreated>;

export const RotateWebhookSecretInput = z
  .object({
    overlap_seconds: z
      .number()
      .int()
      .min(0)
      .max(7 * 24 * 3600)
      .default(24 * 3600)
      .meta({
        description: 'How long deliveries stay signed with the previous secret too (default one day; 0: not at all)',
      }),
  })
  .strict()
  .meta({ id: 'RotateWebhookSecretInput' });

export const WebhookSecretRotated = z
  .object({
    secret: Secret,
    secret_prefix: z.string(),
    previous_secret_expires_at: Timestamp.nullable(),
  })
  .meta({ id: 'WebhookSecretRotated' });

export const WebhookAttempt = z
  .object({
    delivery_id: WebhookDeliveryId,
    message_id: z.string().meta({ description: 'The `webhook-id` sent (the same on every attempt of a delivery)' }),
    event_type: WebhookDeliveredType,
    attempt: z.number().int().min(1),
    attempted_at: Timestamp,
    outcome: z.enum(['succeeded', 'failed']),
    http_status: z.number().int().nullable(),
    latency_ms: z.number().int().min(0),
    error: z
      .string()
      .nullable()
      .meta({ description: 'Why the attempt failed (timeout, refused address, HTTP status…)' }),
    next_attempt_at: Timestamp.nullable().meta({
      description: 'When the delivery is tried again (null: it will not be)',
    }),
  })
  .meta({ id: 'WebhookAttempt' });
export type WebhookAttempt = z.infer<typeof WebhookAttempt>;

export const WebhookTestSent = z
  .object({ delivery_id: WebhookDeliveryId, message_id: z.string() })
  .meta({ id: 'WebhookTestSent' });

/** The JSON body of every delivery (Standard Webhooks' recommended shape). */
export const WebhookPayload = z
  .object({
    type: WebhookDeliveredType,
    timestamp: Timestamp.meta({ description: 'When the event happened' }),
    data: z.record(z.string(), z.unknown()),
  })
  .meta({ id: 'WebhookPayload' });
export type WebhookPayload = z.infer<typeof WebhookPayload>;
