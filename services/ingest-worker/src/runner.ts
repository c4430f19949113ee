import type { PipelineClaim } from '@kg/contracts';
import { asStageError, fail, guard, isConflict, RunLost, systemIdentity } from './captures-calls';
import { runStages } from './run-stages';
import type { Aside } from './pool';
import type { RunJob, RunnerDeps, RunOutcome, RunState } from './run-types';

/**
 * Runs one pipeline run of one capture: claims it, skips the stages the run already recorded
 * (a crashed run resumes after its last completed stage), runs the others with a time limit and
 * bounded retries, records each in provenance (which announces it in the activity timeline),
 * and completes the capture with its node ids, or fails it naming the stage.
 */
export async function runCapture(deps: RunnerDeps, job: RunJob, aside?: Aside): Promise<RunOutcome> {
  const captures = deps.captures.as(systemIdentity(job.tenant_id));
  const log = deps.logger.child({ capture_id: job.capture_id, run_id: job.run_id });
  let claim: PipelineClaim;
  try {
    claim = await captures.pipeline.claim({
      capture_id: job.capture_id,
      run_id: job.run_id,
      lease_ms: deps.policy.leaseMs,
    });
  } catch (err) {
    if (isConflict(err)) return 'skipped';
    throw err;
  }
  if (!claim.claimed) {
    log.debug({ reason: claim.reason }, 'capture not claimed');
    return 'skipped';
  }
  const completed = new Map(claim.completed_stages.map((s) => [s.name, s.output]));
  const state: RunState = { capture: claim.capture, completed, ...(aside ? { aside } : {}) };
  try {
    // A run claimed more often than allowed keeps killing its worker (or keeps being deferred).
    const giveUp =
      claim.attempt > deps.policy.maxClaims
        ? `gave up after ${deps.policy.maxClaims} attempts (the worker stopped during this stage)`
        : null;
    const ended = await runStages(deps, captures, job, state, log, giveUp);
    if (ended) {
      const final = giveUp !== null || !ended.error.retryable || claim.attempt >= deps.policy.maxClaims;
      await fail(captures, job, ended.stage, ended.error.message, final);
      log.warn({ stage: ended.stage, err: ended.error.message, final }, 'stage failed');
      return final ? 'failed' : 'deferred';
    }
    try {
      await guard(
        captures.pipeline.complete({
          capture_id: job.capture_id,
          run_id: job.run_id,
          node_ids: state.nodeIds ?? [],
          ...(state.extracted ? { markdown: state.extracted.markdown } : {}),
          metadata: state.metadata ?? {},
        }),
      );
    } catch (err) {
      // A completion the captures service refuses (a 4xx) would be refused on every claim: the
      // run ends here, as it does once the claims are spent. Anything else: the lease runs out.
      const refused = err instanceof RunLost ? null : asStageError(err, 'captures');
      if (!refused || (refused.retryable && giveUp === null)) throw err;
      await fail(captures, job, 'complete', refused.message, true);
      log.warn({ err: refused.message }, 'completion refused; capture failed');
      return 'failed';
    }
    return 'processed';
  } catch (err) {
    if (err instanceof RunLost) {
      log.info('run lost its claim (superseded or expired); dropped');
      return 'dropped';
    }
    throw err;
  }
}
