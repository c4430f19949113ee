import { TOPICS } from '@kg/contracts';
import type { EventBus } from '@kg/bus';
import type { ParaContext } from '../domain/context';
import { runJob } from '../domain/jobs';

/**
 * Runs reclassification jobs from `kg.para.jobs.v1`. Policy: one job at a time per
 * consumer (partitions, keyed by tenant, spread tenants over replicas); a job is
 * resumable, so a failed attempt is retried from its record (5 attempts, then the
 * dead-letter topic, and the stale-job sweep re-queues it later).
 */
export function subscribeJobs(bus: EventBus, ctx: ParaContext) {
  return bus.subscribe({
    topic: TOPICS.paraJobs,
    group: 'para-reclassify',
    maxAttempts: 5,
    handler: (event) => runJob(ctx, event.tenant_id, event.data.job_id),
  });
}
