import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { RunOutcome } from './run-types';
import type { SandboxOutcome } from './stages/extract/sandbox';

/**
 * The worker's Prometheus metrics: how long each stage takes, how runs end, how sandboxed
 * extractions end (which limit stopped them), and how many runs are in progress or waiting
 * (concurrency and backpressure at a glance).
 */
export function createIngestMetrics(pool: () => { running: number; queued: number; parked: number }) {
  const stage = new Histogram({
    name: 'kg_ingest_stage_duration_seconds',
    help: 'Duration of a completed ingest stage',
    labelNames: ['stage'] as const,
    buckets: [0.001, 0.005, 0.025, 0.1, 0.5, 1, 2.5, 10, 30, 60],
    registers: [],
  });
  const runs = new Counter({
    name: 'kg_ingest_runs_total',
    help: 'Capture runs by outcome (processed, failed, deferred, skipped, dropped, interrupted)',
    labelNames: ['outcome'] as const,
    registers: [],
  });
  const sandbox = new Counter({
    name: 'kg_ingest_extract_sandbox_total',
    help: 'Extractions in the sandbox by how they ended (ok, refused, memory, time, cpu, output, crashed, not_started)',
    labelNames: ['outcome'] as const,
    registers: [],
  });
  type PoolState = ReturnType<typeof pool>;
  const poolGauge = (name: string, help: string, field: keyof PoolState) =>
    new Gauge({
      name,
      help,
      registers: [],
      collect() {
        this.set(pool()[field]);
      },
    });
  const gauges = [
    poolGauge('kg_ingest_runs_in_progress', 'Capture runs in progress in this worker', 'running'),
    poolGauge('kg_ingest_runs_waiting', 'Capture runs accepted and waiting for a free slot', 'queued'),
    poolGauge(
      'kg_ingest_runs_parked',
      'Capture runs waiting for their host (FETCH_MAX_PER_HOST of its runs in progress), holding no place',
      'parked',
    ),
  ];
  return {
    stage: (name: string, ms: number) => stage.observe({ stage: name }, ms / 1000),
    run: (outcome: RunOutcome | 'interrupted') => runs.inc({ outcome }),
    sandbox: (outcome: SandboxOutcome) => sandbox.inc({ outcome }),
    register(registry: Registry) {
      registry.registerMetric(stage);
      registry.registerMetric(runs);
      registry.registerMetric(sandbox);
      for (const gauge of gauges) registry.registerMetric(gauge);
    },
  };
}
