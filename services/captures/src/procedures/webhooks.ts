import type { capturesApi } from '@kg/contracts';
import type { Handlers } from '@kg/trpc';
import {
  createWebhook,
  deleteWebhook,
  getWebhook,
  listWebhooks,
  rotateWebhookSecret,
  sendTestEvent,
  updateWebhook,
  webhookAttempts,
} from '../webhooks/endpoints';
import type { WebhooksContext } from '../webhooks/context';

type H = Handlers<typeof capturesApi>['webhooks'];

/** The webhook operations (the gateway's calls), each acting for the caller's tenant. */
export const webhookHandlers = (ctx: WebhooksContext): H => ({
  create: ({ input, ctx: c }) => createWebhook(ctx, c.identity.tenantId, input),
  list: ({ ctx: c }) => listWebhooks(ctx, c.identity.tenantId),
  get: ({ input, ctx: c }) => getWebhook(ctx, c.identity.tenantId, input.id),
  update: ({ input, ctx: c }) => updateWebhook(ctx, c.identity.tenantId, input.id, input.changes),
  delete: ({ input, ctx: c }) => deleteWebhook(ctx, c.identity.tenantId, input.id),
  rotateSecret: ({ input, ctx: c }) =>
    rotateWebhookSecret(ctx, c.identity.tenantId, input.id, input.options.overlap_seconds),
  test: ({ input, ctx: c }) => sendTestEvent(ctx, c.identity.tenantId, input.id),
  attempts: ({ input, ctx: c }) => webhookAttempts(ctx, c.identity.tenantId, input.id),
});
