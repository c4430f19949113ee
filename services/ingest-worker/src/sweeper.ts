import type { capturesApi } from '@kg/contracts';
import type { Logger } from '@kg/logger';
import { createPeriodicJob } from '@kg/service-kit';
import type { ServiceHandle } from '@kg/trpc';
import { systemIdentity } from './captures-calls';
import type { RunJob } from './run-types';

/** Runs told as waiting per call (the procedure's limit). */
const WAITING_BATCH = 1000;

export interface SweeperDeps {
  captures: ServiceHandle<typeof capturesApi>;
  logger: Logger;
  /** A capture pending this long, or processing this long past its lease, is re-queued. */
  afterMs: number;
  /** The runs this worker keeps in its hosts' lines (host-lanes.ts): told as waiting, not swept. */
  parked?: () => RunJob[];
  intervalMs: number;
}

/**
 * Nothing waits forever: captures left `pending` (a lost message, a deferred retry) or
 * `processing` past their lease (a worker that died) are re-queued, keeping their run, so the
 * next worker resumes after the last recorded stage. Several workers may sweep at once:
 * requeue only acts on a capture still stuck, and a duplicate message is dropped at claim.
 * The runs this worker keeps in its hosts' lines are told first (pipeline.waiting), so no
 * sweeper (this one or another replica's) takes them for lost while they wait their turn.
 */
export function createSweeper(deps: SweeperDeps) {
  async function tellParked(): Promise<void> {
    const runs = deps.parked?.() ?? [];
    for (let i = 0; i < runs.length; i += WAITING_BATCH) {
      try {
        await deps.captures.as(null).pipeline.waiting({ runs: runs.slice(i, i + WAITING_BATCH) });
      } catch (err) {
        deps.logger.warn(
          { err, runs: runs.length },
          'could not tell the captures service which runs wait for their host',
        );
        return;
      }
    }
  }

  async function sweepOnce(): Promise<number> {
    await tellParked();
    const { captures } = await deps.captures.as(null).pipeline.stuck({ older_than_ms: deps.afterMs, limit: 100 });
    let requeued = 0;
    for (const c of captures) {
      try {
        const r = await deps.captures
          .as(systemIdentity(c.tenant_id))
          .pipeline.requeue({ capture_id: c.capture_id, reason: 'sweep' });
        if (r.requeued) requeued++;
      } catch (err) {
        deps.logger.warn({ err, capture_id: c.capture_id }, 'could not re-queue a stuck capture');
      }
    }
    if (requeued) deps.logger.info({ requeued }, 'stuck captures re-queued');
    return requeued;
  }
  return createPeriodicJob({
    name: 'stuck-capture sweep',
    intervalMs: deps.intervalMs,
    logger: deps.logger,
    run: sweepOnce,
  });
}
