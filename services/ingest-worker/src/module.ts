import type { capturesApi, graphApi, searchApi } from '@kg/contracts';
import type { EventBus } from '@kg/bus';
import type { KvStore } from '@kg/kv';
import type { Logger } from '@kg/logger';
import type { ServiceModule } from '@kg/service-kit';
import type { ServiceHandle } from '@kg/trpc';
import type { PipelineConfig } from './config';
import { subscribeQueued } from './consumers/queued';
import { createHostGate } from './host-gate';
import { createHostLanes } from './host-lanes';
import { createIngestMetrics } from './metrics';
import { createStages, extractStageTimeoutMs } from './pipeline';
import { createWorkPool } from './pool';
import { createIngestWorkerRouter } from './router';
import type { RunnerDeps } from './run-types';
import { createSweeper } from './sweeper';

export { pipelineConfigSchema, pipelineEnv, checkPipeline, type PipelineConfig } from './config';

export interface IngestWorkerDeps {
  bus: EventBus;
  logger: Logger;
  /** The captures service: the pipeline procedures (claim, content, recordStage, …). */
  captures: ServiceHandle<typeof capturesApi>;
  /** The graph service: captures.upsertNode, proposals.record. */
  graph: ServiceHandle<typeof graphApi>;
  /** The search service: links.similar (similar nodes for the proposals). */
  search: ServiceHandle<typeof searchApi>;
  /** Shared short-lived state: the fetch stage's per-host limits (Redis across replicas, memory in one process). */
  kv: KvStore;
  config: PipelineConfig;
  /** Told the duration of every stage that ran (the benchmark). */
  onStage?: (name: string, ms: number) => void;
}

/** The ingest worker as a mountable module: the capture.queued consumer, its work pool and the sweeper. */
export async function createIngestWorkerModule(
  deps: IngestWorkerDeps,
): Promise<ServiceModule & { sweep(): Promise<number>; idle(): Promise<void> }> {
  const c = deps.config;
  const pool = createWorkPool({ concurrency: c.INGEST_CONCURRENCY, queueLimit: c.INGEST_QUEUE_LIMIT });
  // At most FETCH_MAX_PER_HOST runs of one host in the pool: as many as the host's turns.
  const lanes = createHostLanes({ pool, perHost: c.FETCH_MAX_PER_HOST, parkedLimit: c.INGEST_HOST_PARKED_LIMIT });
  const metrics = createIngestMetrics(() => ({ ...pool.stats, ...lanes.stats }));
  const stages = createStages(c, { onSandbox: metrics.sandbox });
  const runner: RunnerDeps = {
    captures: deps.captures,
    graph: deps.graph,
    search: deps.search,
    stages,
    hostGate: createHostGate({
      kv: deps.kv,
      maxPerHost: c.FETCH_MAX_PER_HOST,
      intervalMs: c.FETCH_HOST_INTERVAL_MS,
      // A slot whose worker died frees itself once the longest fetch is surely over.
      leaseSeconds: Math.ceil(c.FETCH_TIMEOUT_MS / 1000) + 5,
    }),
    logger: deps.logger,
    policy: {
      stageTimeoutMs: c.INGEST_STAGE_TIMEOUT_MS,
      extractTimeoutMs: extractStageTimeoutMs(c),
      stageAttempts: c.INGEST_STAGE_ATTEMPTS,
      retryBackoffMs: c.INGEST_RETRY_BACKOFF_MS,
      maxClaims: c.INGEST_MAX_CLAIMS,
      leaseMs: c.INGEST_LEASE_MS,
    },
    onStage: (name, ms) => {
      metrics.stage(name, ms);
      deps.onStage?.(name, ms);
    },
  };
  await subscribeQueued(deps.bus, lanes, runner, deps.logger, metrics.run);
  const sweeper = createSweeper({
    captures: deps.captures,
    logger: deps.logger,
    afterMs: c.INGEST_SWEEP_AFTER_MS,
    parked: () => lanes.parked(),
    intervalMs: c.INGEST_SWEEP_INTERVAL_MS,
  });
  return {
    name: 'ingest-worker',
    router: createIngestWorkerRouter(),
    start: async () => sweeper.start(),
    stop: async () => {
      await sweeper.stop();
      lanes.close();
      await pool.close();
      await stages.sandbox.close();
    },
    ready: () => deps.bus.ready(),
    registerMetrics: (registry) => metrics.register(registry),
    sweep: () => sweeper.runOnce(),
    idle: () => pool.idle(),
  };
}
