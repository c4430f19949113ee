import { TOPICS } from '@kg/contracts';
import type { EventBus } from '@kg/bus';
import type { Logger } from '@kg/logger';
import type { HostLanes } from '../host-lanes';
import { runCapture } from '../runner';
import type { RunnerDeps, RunOutcome } from '../run-types';

/**
 * Consumes `capture.queued` from kg.captures.v1. The handler hands the run to the work pool,
 * through its host's lane (host-lanes.ts) when it fetches, and returns once it is accepted or
 * parked (it waits while the pool or the lanes are full: backpressure), so the
 * message is acknowledged before the run ends. At-least-once holds through the captures
 * service: a run that dies with its worker keeps its lease until it expires, and the sweeper
 * re-queues it; a redelivered or duplicate message is dropped at claim.
 */
export function subscribeQueued(
  bus: EventBus,
  lanes: HostLanes,
  runner: RunnerDeps,
  logger: Logger,
  onOutcome: (outcome: RunOutcome | 'interrupted') => void = () => {},
) {
  return bus.subscribe({
    topic: TOPICS.captures,
    group: 'ingest-worker',
    maxAttempts: 5,
    handler: async (event) => {
      if (event.type !== 'capture.queued') return;
      const { capture_id, run_id, fetch_host } = event.data;
      const job = { tenant_id: event.tenant_id, capture_id, run_id };
      await lanes.submit(job, fetch_host, async (aside) => {
        try {
          const outcome = await runCapture(runner, job, aside);
          onOutcome(outcome);
          logger.debug({ capture_id: job.capture_id, run_id: job.run_id, outcome }, 'capture run ended');
        } catch (err) {
          // The lease runs out and the sweeper re-queues the run.
          onOutcome('interrupted');
          logger.warn({ err, capture_id: job.capture_id, run_id: job.run_id }, 'capture run interrupted');
        }
      });
    },
  });
}
