import { type CaptureQueuedEvent } from '@kg/contracts';
import { createMemoryBus, newEventId } from '@kg/bus';
import { createMemoryKv } from '@kg/kv';
import { createLogger } from '@kg/logger';
import { pipelineConfigSchema } from './config';
import { createIngestWorkerModule } from './module';
import { fakeServices } from './testing';

/** The ingest worker as deployed, on an in-memory bus and kv, with fake services and these settings (tests). */
export async function startTestWorker(env: Record<string, string>) {
  const logger = createLogger('test', 'silent');
  const fake = fakeServices();
  const bus = createMemoryBus(logger);
  const kv = createMemoryKv();
  const module = await createIngestWorkerModule({
    bus,
    logger,
    captures: fake.capturesHandle,
    graph: fake.graphHandle,
    search: fake.searchHandle,
    kv,
    config: pipelineConfigSchema.parse(env),
  });
  await module.start();
  await bus.start();
  return {
    fake,
    bus,
    module,
    async stop() {
      await module.stop();
      await bus.stop();
      await kv.close();
    },
  };
}
export type TestWorker = Awaited<ReturnType<typeof startTestWorker>>;

/** The captures service's `capture.queued` for a run (with the host it will fetch from, as it names it). */
export const queuedEvent = (
  job: { tenant_id: string; capture_id: string; run_id: string },
  host?: string,
): CaptureQueuedEvent => ({
  id: newEventId(),
  type: 'capture.queued',
  tenant_id: job.tenant_id,
  occurred_at: new Date().toISOString(),
  version: 1,
  data: { capture_id: job.capture_id, run_id: job.run_id, reason: 'created', ...(host ? { fetch_host: host } : {}) },
});
