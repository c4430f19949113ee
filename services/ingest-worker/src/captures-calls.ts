import type { capturesApi, Identity, ProvenanceStage } from '@kg/contracts';
import { problemFromClientError, type ServiceClient } from '@kg/trpc';
import { StageError } from './stages/result';
import type { RunJob } from './run-types';

/** The worker acts for the capture's tenant as the system, never as a person. */
export const systemIdentity = (tenantId: string): Identity => ({
  tenantId,
  subject: 'system:ingest-worker',
  credential: { kind: 'jwt', id: 'system:ingest-worker' },
});

/** A captures call answered 409: this run is no longer the capture's current one, or lost its claim. */
export class RunLost extends Error {}

export const isConflict = (err: unknown) => problemFromClientError(err, 'captures')?.status === 409;

export async function fail(
  captures: ServiceClient<typeof capturesApi>,
  job: RunJob,
  stage: string,
  error: string,
  final: boolean,
) {
  await guard(
    captures.pipeline.fail({
      capture_id: job.capture_id,
      run_id: job.run_id,
      stage,
      error: error.slice(0, 2000),
      final,
    }),
  );
}

/** A captures call; 409 means this run is over for this worker. */
export async function guard<T>(call: Promise<T>): Promise<T> {
  try {
    return await call;
  } catch (err) {
    if (isConflict(err)) throw new RunLost();
    throw err;
  }
}

/** Records a completed stage (idempotent per run and stage name on the captures side). */
export function recordStage(captures: ServiceClient<typeof capturesApi>, job: RunJob, stage: ProvenanceStage) {
  return guard(captures.pipeline.recordStage({ capture_id: job.capture_id, run_id: job.run_id, stage }));
}

/** Any error as a stage failure: a peer's 4xx (but 408/429) cannot be helped by retrying. */
export function asStageError(err: unknown, peer: string): StageError {
  if (err instanceof StageError) return err;
  const problem = problemFromClientError(err, peer);
  if (problem) {
    const retryable = problem.status >= 500 || problem.status === 408 || problem.status === 429;
    return new StageError(`${peer} answered ${problem.status}: ${problem.detail ?? problem.title}`, retryable);
  }
  return new StageError((err as Error)?.message ?? String(err), true);
}
