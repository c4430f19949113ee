import { afterAll, describe, expect, it } from 'vitest';
import { Registry } from 'prom-client';
import { TOPICS } from '@kg/contracts';
import { queuedEvent, startTestWorker } from './testing-worker';

const worker = await startTestWorker({ OCR_ENABLED: 'false', INGEST_CONCURRENCY: '3' });
const { fake, bus, module } = worker;
afterAll(() => worker.stop());
const queued = (job: { tenant_id: string; capture_id: string; run_id: string }) => queuedEvent(job);

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

  it('an imported bookmark’s node carries its tags (merged with the inferred ones), date, folder and note', async () => {
    const job = fake.add({
      raw_text: 'Postgres keeps old row versions. Vacuum removes postgres row versions nobody can see.',
      metadata: {
        import: {
          import_id: 'imp_01jd8x6q1bf5r3v2m9w7k4t0za',
          folder: ['Tech', 'Databases'],
          tags: ['Tech', 'Databases', 'Postgres'],
          added_at: '2019-03-04T10:11:12Z',
          note: 'Read the MVCC part again.',
          para: false,
        },
      },
    });
    await bus.publish(TOPICS.captures, [{ key: job.tenant_id, value: queued(job) }]);
    await bus.drain();
    await module.idle();
    const c = fake.captures.get(job.capture_id)!;
    expect(c.run.status).toBe('processed');
    const node = fake.nodes.get(c.node_ids[0]!)!;
    expect(node.tags.slice(0, 3)).toEqual(['Tech', 'Databases', 'Postgres']);
    expect(node.tags).toEqual(expect.arrayContaining(['row', 'versions']));
    expect(node.tags.filter((t) => t.toLowerCase() === 'postgres')).toHaveLength(1);
    expect(node.content).toContain('## Bookmark\n\n- Added: 2019-03-04T10:11:12.000Z\n- Folder: Tech / Databases');
    expect(node.content).toMatch(/### Note\n\nRead the MVCC part again\.\n$/);
    // The capture keeps its import record (completion merges into its metadata).
    expect(c.capture.metadata.import).toMatchObject({ folder: ['Tech', 'Databases'] });
  });

  it('a hostile import record never fails the run: bounded, the node made', async () => {
    const job = fake.add({
      raw_text: 'Some text about bees.',
      metadata: {
        import: {
          folder: ['f'.repeat(10_000), 3],
          tags: Array.from({ length: 50_000 }, (_, i) => (i % 2 ? i : `t${i}`)),
          note: 'n'.repeat(1024 * 1024),
          added_at: { toISOString: 1 },
          para: 'true',
        },
      },
    });
    await bus.publish(TOPICS.captures, [{ key: job.tenant_id, value: queued(job) }]);
    await bus.drain();
    await module.idle();
    const c = fake.captures.get(job.capture_id)!;
    expect(c.run.status).toBe('processed');
    const node = fake.nodes.get(c.node_ids[0]!)!;
    expect(node.tags).toHaveLength(64);
    expect(node.content).toContain(`- Folder: ${'f'.repeat(200)}\n`);
    expect(node.content.length).toBeLessThan(7000);
  });

  it('para: true asks graph for the innermost folder as a PARA resource, one item for the folder; otherwise none', async () => {
    const imported = (folder: unknown[], para: unknown) =>
      fake.add({
        raw_text: 'Indexes speed up reads. Indexes slow down writes.',
        metadata: { import: { folder, tags: [], added_at: null, note: null, para } },
      });
    const both = [imported(['Tech', 'Databases'], true), imported(['Work', ' Databases '], true)];
    const none = [imported(['Tech'], false), imported([], true), imported(['x'.repeat(10_000)], 'true')];
    await bus.publish(
      TOPICS.captures,
      [...both, ...none].map((j) => ({ key: j.tenant_id, value: queued(j) })),
    );
    await bus.drain();
    await module.idle();
    for (const j of [...both, ...none]) expect(fake.captures.get(j.capture_id)!.run.status).toBe('processed');
    expect(both.map((j) => fake.paraRequests.get(j.capture_id))).toEqual([
      { category: 'resources', label: 'Databases' },
      { category: 'resources', label: 'Databases' },
    ]);
    for (const j of none) expect(fake.paraRequests.has(j.capture_id)).toBe(false);
    expect(fake.paraItems.size).toBe(1);
    // The stage's provenance says which item the node was assigned to.
    const stage = fake.captures.get(both[0]!.capture_id)!.run.stages.find((st) => st.name === 'propose')!;
    expect(stage.output).toMatchObject({ para_item: { label: 'Databases', assigned: true } });
  });

  it('a sweep re-queues nothing when nothing is stuck', async () => {
    expect(await module.sweep()).toBe(0);
  });

  it('registers its metrics: stage durations, run outcomes, runs in progress and waiting', async () => {
    const registry = new Registry();
    module.registerMetrics!(registry);
    const text = await registry.metrics();
    expect(text).toMatch(/kg_ingest_stage_duration_seconds_count\{stage="extract"\} 17/);
    expect(text).toMatch(/kg_ingest_stage_duration_seconds_count\{stage="node"\} 17/);
    expect(text).toMatch(/kg_ingest_runs_total\{outcome="processed"\} 17/);
    expect(text).toContain('kg_ingest_runs_in_progress 0');
    expect(text).toContain('kg_ingest_runs_waiting 0');
    expect(text).toContain('kg_ingest_runs_parked 0');
  });
});
