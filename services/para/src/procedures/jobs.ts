import type { paraApi } from '@kg/contracts';
import type { Handlers } from '@kg/trpc';
import type { ParaContext } from '../domain/context';
import { getJob, startJob } from '../domain/jobs';

type H = Handlers<typeof paraApi>;

/** POST /para/rescan (its once-per-5-minutes limit is kept by the gateway in the shared kv store). */
export const rescan =
  (ctx: ParaContext): H['rescan'] =>
  async ({ ctx: call }) => {
    const job = await startJob(ctx, call.identity, 'rescan', null);
    return { queued: job.queued, job_id: job.id };
  };

export const get =
  (ctx: ParaContext): H['jobs']['get'] =>
  ({ input, ctx: call }) =>
    getJob(ctx, call.identity.tenantId, input.id);
