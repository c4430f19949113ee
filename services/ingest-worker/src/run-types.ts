/**
 * The shapes of a pipeline run, shared by the runner (runner.ts), its stages (run-stages.ts,
 * stages/*) and the calls to the captures service (captures-calls.ts): types only, so those
 * import in one direction (runner -> run-stages -> stages, each -> captures-calls).
 */
import type { Capture, capturesApi, graphApi, searchApi } from '@kg/contracts';
import type { Logger } from '@kg/logger';
import type { ServiceHandle } from '@kg/trpc';
import type { HostGate } from './host-gate';
import type { Stages } from './pipeline';
import type { Aside } from './pool';
import type { Extracted } from './stages/extract/index';
import type { Fetched } from './stages/fetch';
import type { Summary } from './stages/summarise';

export interface RunPolicy {
  stageTimeoutMs: number;
  /**
   * Limit of one attempt of the extract stage, when it differs: the extraction sandbox bounds
   * extract itself (permanently, naming the limit), so its attempt is given the sandbox's
   * longest limit and start-up, whatever INGEST_STAGE_TIMEOUT_MS says.
   */
  extractTimeoutMs?: number;
  stageAttempts: number;
  retryBackoffMs: number;
  maxClaims: number;
  leaseMs: number;
}

export interface RunnerDeps {
  captures: ServiceHandle<typeof capturesApi>;
  graph: ServiceHandle<typeof graphApi>;
  /** Similar nodes for the proposals (links.similar). */
  search: ServiceHandle<typeof searchApi>;
  stages: Stages;
  /** Per-host politeness of the fetch stage (none: fetches are not held). */
  hostGate?: HostGate;
  policy: RunPolicy;
  logger: Logger;
  /** Told the duration of every stage that ran (metrics, the benchmark). */
  onStage?: (name: string, ms: number) => void;
}

export interface RunJob {
  tenant_id: string;
  capture_id: string;
  run_id: string;
}

/**
 * processed / failed: the run ended so. deferred: a retryable failure with claims left (the
 * capture is pending again; the sweeper re-queues it). skipped: nothing to do (done, another
 * worker's live lease, superseded, deleted). dropped: the run lost its claim midway (409).
 */
export type RunOutcome = 'processed' | 'failed' | 'deferred' | 'skipped' | 'dropped';

/** What a run knows so far: the capture, outputs recorded by earlier attempts, and this attempt's. */
export interface RunState {
  capture: Capture;
  completed: Map<string, Record<string, unknown>>;
  content?: { mime: string | null; bytes: Uint8Array | null; raw: string | null };
  fetched?: Fetched;
  extracted?: Extracted;
  summary?: Summary;
  nodeIds?: string[];
  metadata?: Record<string, unknown>;
  /** Runs a wait outside the work pool's places (the fetch's turn at its host); absent: in place. */
  aside?: Aside;
}
