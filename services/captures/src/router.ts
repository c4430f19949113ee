import { capturesApi } from '@kg/contracts';
import { defineRouter } from '@kg/trpc';
import type { CapturesContext } from './domain/context';
import type { ImportsContext } from './imports/context';
import { captureHandlers } from './procedures/captures';
import { importHandlers } from './procedures/imports';
import { info } from './procedures/info';
import { pipelineHandlers } from './procedures/pipeline';
import { webhookHandlers } from './procedures/webhooks';
import type { WebhooksContext } from './webhooks/context';

/** capturesRouter: the public capture, webhook and import operations (gateway) and the pipeline's (ingest worker). */
export const createCapturesRouter = (ctx: CapturesContext, webhooks: WebhooksContext, imports: ImportsContext) =>
  defineRouter(capturesApi, {
    info,
    ...captureHandlers(ctx),
    pipeline: pipelineHandlers(ctx),
    webhooks: webhookHandlers(webhooks),
    imports: importHandlers(imports),
  });
