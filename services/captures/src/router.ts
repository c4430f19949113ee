import { capturesApi } from '@kg/contracts';
import { defineRouter } from '@kg/trpc';
import type { CapturesContext } from './domain/context';
import { captureHandlers } from './procedures/captures';
import { info } from './procedures/info';
import { pipelineHandlers } from './procedures/pipeline';

/** capturesRouter: the public capture operations (gateway) and the pipeline's (ingest worker). */
export const createCapturesRouter = (ctx: CapturesContext) =>
  defineRouter(capturesApi, { info, ...captureHandlers(ctx), pipeline: pipelineHandlers(ctx) });
