import type { capturesApi } from '@kg/contracts';
import type { Handlers } from '@kg/trpc';
import type { CapturesContext } from '../domain/context';
import {
  claimRun,
  completeRun,
  failRun,
  recordStage,
  requeueRun,
  runsWaiting,
  stuckCaptures,
} from '../domain/pipeline';
import { pipelineContent } from '../domain/reads';

type H = Handlers<typeof capturesApi>['pipeline'];

/** The ingest worker's procedures (contract: packages/contracts/src/api/captures.ts). */
export const pipelineHandlers = (ctx: CapturesContext): H => ({
  claim: ({ input, ctx: c }) => claimRun(ctx, c.identity.tenantId, input),
  content: ({ input, ctx: c }) => pipelineContent(ctx, c.identity.tenantId, input.capture_id),
  recordStage: ({ input, ctx: c }) => recordStage(ctx, c.identity.tenantId, input),
  complete: ({ input, ctx: c }) => completeRun(ctx, c.identity.tenantId, input),
  fail: ({ input, ctx: c }) => failRun(ctx, c.identity.tenantId, input),
  stuck: ({ input }) => stuckCaptures(ctx, input.older_than_ms, input.limit),
  waiting: ({ input }) => runsWaiting(ctx, input.runs),
  requeue: ({ input, ctx: c }) => requeueRun(ctx, c.identity.tenantId, input.capture_id, input.reason),
});
