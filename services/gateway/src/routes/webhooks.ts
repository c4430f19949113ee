import {
  ById,
  CreateWebhookInput,
  RotateWebhookSecretInput,
  UpdateWebhookInput,
  Webhook,
  WebhookAttempt,
  WebhookCreated,
  WebhookSecretRotated,
  WebhookTestSent,
  listOf,
} from '@kg/contracts';
import { defineRoute, noContent, ok, type Route } from './route';

const base = { tag: 'Webhooks', auth: 'required', service: 'captures' } as const;
const SECRET_ANSWER = { 'Cache-Control': 'no-store' };

/** Signed outbound webhooks (Standard Webhooks); the captures service keeps and delivers them. */
export const webhookRoutes: Route[] = [
  defineRoute({
    ...base,
    method: 'post',
    path: '/webhooks',
    operationId: 'createWebhook',
    summary:
      'Register an endpoint for signed event deliveries; the answer holds its signing secret, shown this once (400 when the URL is not public; 409 past the per-tenant limit)',
    body: CreateWebhookInput,
    success: { status: 201, description: 'Created; `secret` is not shown again', schema: WebhookCreated },
    errors: [409],
    async handle(req, peers) {
      const created = await peers.captures.as(req.identity).webhooks.create(req.body);
      return { status: 201, body: created, headers: SECRET_ANSWER };
    },
  }),
  defineRoute({
    ...base,
    method: 'get',
    path: '/webhooks',
    operationId: 'listWebhooks',
    summary: "The tenant's webhook endpoints, oldest first (a disabled one says why in `disabled_reason`)",
    success: { status: 200, description: 'Endpoints', schema: listOf(Webhook) },
    async handle(req, peers) {
      return ok(await peers.captures.as(req.identity).webhooks.list({}));
    },
  }),
  defineRoute({
    ...base,
    method: 'get',
    path: '/webhooks/:id',
    operationId: 'getWebhook',
    summary: 'One webhook endpoint',
    params: ById,
    success: { status: 200, description: 'The endpoint', schema: Webhook },
    errors: [404],
    async handle(req, peers) {
      return ok(await peers.captures.as(req.identity).webhooks.get({ id: req.params.id }));
    },
  }),
  defineRoute({
    ...base,
    method: 'patch',
    path: '/webhooks/:id',
    operationId: 'updateWebhook',
    summary: 'Change an endpoint: URL, event types, description; `enabled` pauses it or re-enables a disabled one',
    params: ById,
    body: UpdateWebhookInput,
    success: { status: 200, description: 'The endpoint after the change', schema: Webhook },
    errors: [404],
    async handle(req, peers) {
      return ok(await peers.captures.as(req.identity).webhooks.update({ id: req.params.id, changes: req.body }));
    },
  }),
  defineRoute({
    ...base,
    method: 'delete',
    path: '/webhooks/:id',
    operationId: 'deleteWebhook',
    summary: 'Delete an endpoint with its pending deliveries and its attempt log',
    params: ById,
    success: { status: 204, description: 'Deleted' },
    errors: [404],
    async handle(req, peers) {
      await peers.captures.as(req.identity).webhooks.delete({ id: req.params.id });
      return noContent();
    },
  }),
  defineRoute({
    ...base,
    method: 'post',
    path: '/webhooks/:id/rotate-secret',
    operationId: 'rotateWebhookSecret',
    summary:
      'A new signing secret, shown this once; deliveries carry a signature with the previous secret too for `overlap_seconds` (default one day)',
    params: ById,
    body: RotateWebhookSecretInput,
    success: { status: 200, description: 'The new secret', schema: WebhookSecretRotated },
    errors: [404],
    async handle(req, peers) {
      const rotated = await peers.captures
        .as(req.identity)
        .webhooks.rotateSecret({ id: req.params.id, options: req.body });
      return { status: 200, body: rotated, headers: SECRET_ANSWER };
    },
  }),
  defineRoute({
    ...base,
    method: 'post',
    path: '/webhooks/:id/test',
    operationId: 'testWebhook',
    summary: 'Queue a `webhook.test` delivery to the endpoint now; its outcome appears in the attempt log',
    params: ById,
    success: { status: 202, description: 'Queued', schema: WebhookTestSent },
    errors: [404],
    async handle(req, peers) {
      return ok(await peers.captures.as(req.identity).webhooks.test({ id: req.params.id }), 202);
    },
  }),
  defineRoute({
    ...base,
    method: 'get',
    path: '/webhooks/:id/attempts',
    operationId: 'listWebhookAttempts',
    summary: "The endpoint's last 100 delivery attempts, newest first, with status and latency",
    params: ById,
    success: { status: 200, description: 'Attempts', schema: listOf(WebhookAttempt) },
    errors: [404],
    async handle(req, peers) {
      return ok(await peers.captures.as(req.identity).webhooks.attempts({ id: req.params.id }));
    },
  }),
];
