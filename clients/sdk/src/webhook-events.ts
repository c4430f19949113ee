/**
 * The event types a webhook endpoint can subscribe to, each with a line for people. Shared by
 * the CLI (`kg webhooks --events`) and the dashboard's Settings › Webhooks (which bundles this
 * file: no Node.js API). The record's type makes the compiler name a type the API gained and
 * this list lacks; webhook-events.test.ts checks it against the committed openapi.json too.
 */
import type { components } from './openapi.ts';

export type WebhookEventType = components['schemas']['WebhookEventType'];

export const WEBHOOK_EVENTS: Readonly<Record<WebhookEventType, string>> = {
  'capture.processed': 'a capture finished processing',
  'capture.failed': 'a capture failed',
  'node.created': 'a node was created',
  'node.updated': 'a node was changed',
  'node.deleted': 'a node was deleted',
  'links.changed': "a node's links changed",
  'proposal.created': 'a link or PARA proposal was made for a node',
  'para.item.changed': 'a PARA item was created, changed, completed or archived',
};

export const WEBHOOK_EVENT_TYPES = Object.keys(WEBHOOK_EVENTS) as WebhookEventType[];
