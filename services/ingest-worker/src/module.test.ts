import { afterAll, describe, expect, it } from 'vitest';
import { Registry } from 'prom-client';
import { TOPICS, type CaptureQueuedEvent } from '@kg/contracts';
import { createMemoryBus, newEventId } from '@kg/bus';
import { createLogger } from '@kg/logger';
import { pipelineConfigSchema } from './config';
import { createIngestWorkerModule } from './module';
import { fakeServices } from './testing';

const logger = createLogger('test', 'silent');
const fake = fakeServices();
const bus = createMemoryBus(logger);
const module = await createIngestWorkerModule({
  bus,
  logger,
  captures: fake.capturesHandle,
  graph: fake.graphHandle,
  search: fake.searchHandle,
  config: pipelineConfigSchema.parse({ OCR_ENABLED: 'false', INGEST_CONCURRENCY: '3' }),
});
await module.start();
await bus.start();
afterAll(async () => {
  await module.stop();
  await bus.stop();
});

const queued = (job: { tenant_id: string; capture_id: string; run_id: string }): CaptureQueuedEvent => ({
  id: newEventId(),
  type: 'capture.queued',
  tenant_id: job.tenant_id,
  occurred_at: new Date().toISOString(),
  version: 1,
  data: { capture_id: job.capture_id, run_id: job.run_id, reason: 'created' },
});

describe('ingest-worker module', () => {
  it('consumes capture.queued from the bus and processes each capture once, duplicates included', async () => {
    const jobs = Array.from({ length: 10 }, (_, i) =>
      fake.add({ raw_text: `Note number ${i}. It has two sentences.` }),
    );
    const events = jobs.flatMap((j) => [queued(j), queued(j)]); // every message delivered twice
    await bus.publish(
      TOPICS.captures,
      events.map((e) => ({ key: e.tenant_id, value: e })),
    );
    await bus.drain();
    await module.idle();
    for (const j of jobs) {
      const c = fake.captures.get(j.capture_id)!;
      expect(c.run.status).toBe('processed');
      expect(c.log.filter((l) => l === 'processed')).toHaveLength(1);
      expect(fake.nodes.get(c.node_ids[0]!)!.writes).toBe(1);
    }
  });

  it('a sweep re-queues nothing when nothing is stuck', async () => {
    expect(await module.sweep()).toBe(0);
  });

  it('registers its metrics: stage durations, run outcomes, runs in progress and waiting', async () => {
    const registry = new Registry();
    module.registerMetrics!(registry);
    const text = await registry.metrics();
    expect(text).toMatch(/kg_ingest_stage_duration_seconds_count\{stage="extract"\} 10/);
    expect(text).toMatch(/kg_ingest_stage_duration_seconds_count\{stage="node"\} 10/);
    expect(text).toMatch(/kg_ingest_runs_total\{outcome="processed"\} 10/);
    expect(text).toContain('kg_ingest_runs_in_progress 0');
    expect(text).toContain('kg_ingest_runs_waiting 0');
  });
});
