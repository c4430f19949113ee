import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFsBlobStore } from '@kg/blobs';
import { createMemoryBus, type MemoryBus } from '@kg/bus';
import { capturesApi, TOPICS, type CaptureEvent, type Identity } from '@kg/contracts';
import { newId, openDatabase, type Database } from '@kg/db';
import { createLogger } from '@kg/logger';
import { connectService } from '@kg/trpc';
import { capturesMigrations, createCapturesModule } from './module';

const alice: Identity = { tenantId: newId('tenant'), subject: 'u1', credential: { kind: 'jwt', id: 'j1' } };
const bob: Identity = { tenantId: newId('tenant'), subject: 'u2', credential: { kind: 'jwt', id: 'j2' } };

let database: Database;
let bus: MemoryBus;
let dir: string;
let module: Awaited<ReturnType<typeof createCapturesModule>>;
const queued: CaptureEvent[] = [];
const changes: string[] = [];

beforeAll(async () => {
  database = await openDatabase({ dataDir: null });
  await database.migrate(capturesMigrations);
  dir = await mkdtemp(path.join(tmpdir(), 'kg-captures-'));
  const logger = createLogger('captures', 'silent');
  bus = createMemoryBus(logger);
  await bus.subscribe({ topic: TOPICS.captures, group: 'test', handler: async (e) => void queued.push(e) });
  await bus.subscribe({
    topic: TOPICS.captureChanges,
    group: 'test',
    handler: async (e) =>
      void changes.push(
        e.type === 'capture.changed' ? `${e.data.capture_id} ${e.data.status}` : `${e.data.capture_id} deleted`,
      ),
  });
  await bus.start();
  module = await createCapturesModule({ database, bus, blobs: createFsBlobStore(dir), logger, leaseMs: 60_000 });
}, 60_000);
afterAll(async () => {
  await bus.stop();
  await database.close();
  await rm(dir, { recursive: true, force: true });
});

const as = (caller: 'gateway' | 'ingest-worker', who: Identity | null) =>
  connectService(caller, 'captures', capturesApi, { kind: 'local', router: module.router }).as(who);
const gateway = (who: Identity = alice) => as('gateway', who);
const worker = (who: Identity = alice) => as('ingest-worker', who).pipeline;
const note = { title: 'A note', content_type: 'note', source: 'cli', raw_content: 'Hello world.' } as const;
const kinds = async (id: string) => (await gateway().activity({ id })).data.map((a) => a.kind);
const stage = (name: string, output: Record<string, unknown> = {}) => ({
  name,
  started_at: '2026-11-23T12:00:00.000Z',
  finished_at: '2026-11-23T12:00:01.000Z',
  model: 'deterministic/v1',
  input_digest: 'sha256:00',
  output,
});

/** Flushes the outbox and returns the run id of the latest capture.queued of `id`. */
async function runOf(id: string): Promise<string> {
  await module.flushEvents();
  await new Promise((r) => setTimeout(r, 20));
  const last = queued.filter((e) => e.data.capture_id === id).at(-1);
  if (!last) throw new Error(`no capture.queued for ${id}`);
  return last.data.run_id;
}

describe('captures service', () => {
  it('answers its info procedure', async () => {
    expect((await as('gateway', null).info({})).service).toBe('captures');
  });

  it('creates a pending capture, records created then queued, and queues a run through the outbox', async () => {
    const c = await gateway().create(note);
    expect(c).toMatchObject({ title: 'A note', status: 'pending', node_ids: [], error: null, url: null });
    expect(await kinds(c.id)).toEqual(['created', 'queued']);
    const run = await runOf(c.id);
    const event = queued.find((e) => e.data.run_id === run)!;
    expect(event).toMatchObject({ type: 'capture.queued', tenant_id: alice.tenantId, data: { reason: 'created' } });
    expect(event.version).toBeGreaterThan(0);
    expect(event.data.fetch_host).toBeUndefined();
    expect(changes).toContain(`${c.id} pending`);
  });

  it('names the host the pipeline fetches from on capture.queued, and none when the content came with the capture', async () => {
    const fetched = await gateway().create({
      title: 'A page',
      url: 'https://Docs.Example.org/a?b=1',
      content_type: 'article',
      source: 'api',
    });
    const sent = await gateway().create({
      title: 'A page with its HTML',
      url: 'https://docs.example.org/b',
      content_type: 'article',
      raw_content: '<p>Sent by the extension</p>',
      source: 'browser-extension',
    });
    const video = await gateway().create({
      title: 'A video',
      url: 'https://video.example/v/1',
      content_type: 'video',
      source: 'api',
    });
    const hostOf = async (id: string) => {
      const run = await runOf(id);
      return queued.find((e) => e.data.run_id === run)!.data.fetch_host;
    };
    expect(await hostOf(fetched.id)).toBe('docs.example.org');
    expect(await hostOf(sent.id)).toBeUndefined();
    expect(await hostOf(video.id)).toBeUndefined();
  });

  it('runs the pipeline: claim, stages (idempotent), complete; markdown and provenance follow', async () => {
    const c = await gateway().create(note);
    const run = await runOf(c.id);
    const claim = await worker().claim({ capture_id: c.id, run_id: run });
    expect(claim).toMatchObject({ claimed: true, attempt: 1, completed_stages: [] });
    expect((await gateway().get({ id: c.id })).status).toBe('processing');
    expect(await worker().claim({ capture_id: c.id, run_id: run })).toMatchObject({ claimed: false, reason: 'leased' });
    expect(
      await worker().recordStage({ capture_id: c.id, run_id: run, stage: stage('extract', { markdown: '# Hi' }) }),
    ).toEqual({ recorded: true });
    expect(
      await worker().recordStage({ capture_id: c.id, run_id: run, stage: stage('extract', { markdown: 'other' }) }),
    ).toEqual({ recorded: false });
    const nodeId = newId('node');
    const done = await worker().complete({ capture_id: c.id, run_id: run, node_ids: [nodeId], title: 'Better title' });
    expect(done).toMatchObject({ status: 'processed', node_ids: [nodeId], title: 'Better title' });
    const md = await gateway().content({ id: c.id, format: 'markdown' });
    expect(md.content_type).toBe('text/markdown; charset=utf-8');
    expect(Buffer.from(md.bytes_base64, 'base64').toString()).toBe('# Hi');
    const raw = await gateway().content({ id: c.id });
    expect(Buffer.from(raw.bytes_base64, 'base64').toString()).toBe('Hello world.');
    expect(await kinds(c.id)).toEqual(['created', 'queued', 'processing_started', 'stage_completed', 'processed']);
    const prov = await gateway().provenance({ id: c.id });
    expect(prov.runs).toHaveLength(1);
    expect(prov.runs[0]).toMatchObject({ run_id: run, status: 'processed', reason: 'created' });
    expect(prov.runs[0]!.stages.map((s) => [s.name, s.model])).toEqual([['extract', 'deterministic/v1']]);
    expect(await worker().claim({ capture_id: c.id, run_id: run })).toMatchObject({
      claimed: false,
      reason: 'processed',
    });
  });

  it('retry answers 409 unless failed; a final failure names the stage; retry queues a new run', async () => {
    const c = await gateway().create(note);
    await expect(gateway().retry({ id: c.id })).rejects.toMatchObject({ data: { code: 'CONFLICT' } });
    const run = await runOf(c.id);
    await worker().claim({ capture_id: c.id, run_id: run });
    await expect(gateway().retry({ id: c.id })).rejects.toMatchObject({ data: { code: 'CONFLICT' } });
    await expect(gateway().reingest({ id: c.id })).rejects.toMatchObject({ data: { code: 'CONFLICT' } });
    const soft = await worker().fail({
      capture_id: c.id,
      run_id: run,
      stage: 'extract',
      error: 'timeout',
      final: false,
    });
    expect(soft.status).toBe('pending');
    const again = await worker().claim({ capture_id: c.id, run_id: run });
    expect(again).toMatchObject({ claimed: true, attempt: 2 });
    const failed = await worker().fail({
      capture_id: c.id,
      run_id: run,
      stage: 'extract',
      error: 'timeout',
      final: true,
    });
    expect(failed).toMatchObject({ status: 'failed', error: 'extract: timeout' });
    const retried = await gateway().retry({ id: c.id });
    expect(retried).toMatchObject({ status: 'pending', error: null });
    const second = await runOf(c.id);
    expect(second).not.toBe(run);
    expect(await worker().claim({ capture_id: c.id, run_id: run })).toMatchObject({
      claimed: false,
      reason: 'superseded',
    });
    await expect(worker().complete({ capture_id: c.id, run_id: run, node_ids: [] })).rejects.toMatchObject({
      data: { code: 'CONFLICT' },
    });
    expect(await kinds(c.id)).toEqual([
      'created',
      'queued',
      'processing_started',
      'stage_failed',
      'processing_started',
      'failed',
      'retried',
      'queued',
    ]);
  });

  it('a crashed run resumes after its lease: completed stages come back, the sweeper requeues it', async () => {
    const c = await gateway().create(note);
    const run = await runOf(c.id);
    await worker().claim({ capture_id: c.id, run_id: run, lease_ms: 1000 });
    await worker().recordStage({ capture_id: c.id, run_id: run, stage: stage('fetch', { bytes: 3 }) });
    const past = module.ctx.now;
    module.ctx.now = () => new Date(Date.now() + 200_000);
    try {
      const stuck = await as('ingest-worker', null).pipeline.stuck({ older_than_ms: 1000, limit: 1000 });
      expect(stuck.captures).toContainEqual({
        tenant_id: alice.tenantId,
        capture_id: c.id,
        run_id: run,
        status: 'processing',
      });
      expect(await worker().requeue({ capture_id: c.id, reason: 'sweep' })).toEqual({ requeued: true, run_id: run });
      expect(await runOf(c.id)).toBe(run);
      const resumed = await worker().claim({ capture_id: c.id, run_id: run });
      expect(resumed).toMatchObject({
        claimed: true,
        attempt: 2,
        completed_stages: [{ name: 'fetch', output: { bytes: 3 } }],
      });
      expect(await worker().requeue({ capture_id: c.id, reason: 'sweep' })).toEqual({ requeued: false, run_id: run });
    } finally {
      module.ctx.now = past;
    }
  });

  it('a run a worker holds in a host’s line counts as queued now: not offered as stuck, nothing a reader sees changes', async () => {
    const c = await gateway().create(note);
    const run = await runOf(c.id);
    const other = await gateway().create(note);
    const otherRun = await runOf(other.id);
    const past = module.ctx.now;
    module.ctx.now = () => new Date(Date.now() + 200_000);
    try {
      const stuck = async () =>
        (await as('ingest-worker', null).pipeline.stuck({ older_than_ms: 60_000, limit: 1000 })).captures.map(
          (s) => s.capture_id,
        );
      expect(await stuck()).toEqual(expect.arrayContaining([c.id, other.id]));
      const before = await gateway().get({ id: c.id });
      const waiting = (runs: { tenant_id: string; capture_id: string; run_id: string }[]) =>
        as('ingest-worker', null).pipeline.waiting({ runs });
      // Another run id of the capture, or another tenant's id with this run, touches nothing.
      expect(await waiting([{ tenant_id: alice.tenantId, capture_id: c.id, run_id: otherRun }])).toEqual({
        touched: 0,
      });
      expect(await waiting([{ tenant_id: bob.tenantId, capture_id: c.id, run_id: run }])).toEqual({ touched: 0 });
      expect(await waiting([{ tenant_id: alice.tenantId, capture_id: c.id, run_id: run }])).toEqual({ touched: 1 });
      expect(await stuck()).not.toContain(c.id);
      expect(await stuck()).toContain(other.id);
      expect(await gateway().get({ id: c.id })).toEqual(before);
      // Once claimed it is not pending: nothing to touch.
      await worker().claim({ capture_id: c.id, run_id: run });
      expect(await waiting([{ tenant_id: alice.tenantId, capture_id: c.id, run_id: run }])).toEqual({ touched: 0 });
    } finally {
      module.ctx.now = past;
    }
  });

  it('archive and dismiss keep the data; unarchive returns to the status before', async () => {
    const c = await gateway().create(note);
    const run = await runOf(c.id);
    await worker().claim({ capture_id: c.id, run_id: run });
    await worker().complete({ capture_id: c.id, run_id: run, node_ids: [] });
    expect((await gateway().archive({ id: c.id })).status).toBe('archived');
    expect((await gateway().archive({ id: c.id })).status).toBe('archived');
    expect((await gateway().unarchive({ id: c.id })).status).toBe('processed');
    expect((await gateway().dismiss({ id: c.id })).status).toBe('dismissed');
    expect((await gateway().unarchive({ id: c.id })).status).toBe('processed');
    expect((await gateway().list({ page: 1, per_page: 100, status: 'processed' })).data.map((x) => x.id)).toContain(
      c.id,
    );
  });

  it('lists newest first with the envelope and a status filter; check finds a URL', async () => {
    const url = `https://example.com/${newId('run')}`;
    const a = await gateway(bob).create({ ...note, url, content_type: 'article' });
    const b = await gateway(bob).create({ ...note, title: 'second' });
    const page = await gateway(bob).list({ page: 1, per_page: 1 });
    expect(page).toMatchObject({ total: 2, page: 1, per_page: 1 });
    expect(page.data.map((x) => x.id)).toEqual([b.id]);
    expect((await gateway(bob).list({ page: 1, per_page: 20, status: 'failed' })).total).toBe(0);
    expect(await gateway(bob).check({ url })).toMatchObject({ capture_id: a.id, status: 'pending' });
    await expect(gateway(bob).check({ url: `${url}/other` })).rejects.toMatchObject({ data: { code: 'NOT_FOUND' } });
    expect(await gateway(bob).stats({})).toEqual({ total: 2, pending: 2, processing: 0, failed: 0 });
  });

  it("another tenant's capture is 404 everywhere", async () => {
    const c = await gateway().create(note);
    for (const call of [
      () => gateway(bob).get({ id: c.id }),
      () => gateway(bob).activity({ id: c.id }),
      () => gateway(bob).archive({ id: c.id }),
      () => gateway(bob).delete({ id: c.id }),
      () => gateway(bob).get({ id: 'cap_nope' }),
    ])
      await expect(call()).rejects.toMatchObject({ data: { code: 'NOT_FOUND' } });
    expect(await worker(bob).claim({ capture_id: c.id, run_id: await runOf(c.id) })).toMatchObject({
      claimed: false,
      reason: 'not_found',
    });
  });

  it('uploads keep the bytes in blob storage; delete removes the capture and its blob', async () => {
    const bytes = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 3]);
    const c = await gateway().upload({
      filename: 'a.png',
      mime_type: 'image/png',
      content_type: 'image',
      bytes_base64: bytes.toString('base64'),
      why: 'diagram',
    });
    expect(c).toMatchObject({ title: 'a.png', why: 'diagram', content_type: 'image', metadata: { size_bytes: 8 } });
    const original = await gateway().content({ id: c.id });
    expect(original.content_type).toBe('image/png');
    expect(Buffer.from(original.bytes_base64, 'base64')).toEqual(bytes);
    expect((await worker().content({ capture_id: c.id })).bytes_base64).toBe(bytes.toString('base64'));
    expect(await module.ctx.blobs.get(`${alice.tenantId}/${c.id}`)).toEqual(bytes);
    expect(await gateway().delete({ id: c.id })).toEqual({ deleted: true });
    expect(await module.ctx.blobs.get(`${alice.tenantId}/${c.id}`)).toBeNull();
    await expect(gateway().get({ id: c.id })).rejects.toMatchObject({ data: { code: 'NOT_FOUND' } });
    await module.flushEvents();
    await new Promise((r) => setTimeout(r, 20));
    expect(changes).toContain(`${c.id} deleted`);
  });

  it("usage counts the bytes of a tenant's uploaded files, not its text captures, nor another tenant's", async () => {
    const carol: Identity = { tenantId: newId('tenant'), subject: 'u3', credential: { kind: 'jwt', id: 'j3' } };
    expect(await gateway(carol).usage({})).toEqual({ stored_bytes: 0 });
    const file = (n: number) => ({
      filename: 'a.txt',
      mime_type: 'text/plain',
      content_type: 'note' as const,
      bytes_base64: Buffer.alloc(n, 'a').toString('base64'),
    });
    const [a] = await Promise.all([gateway(carol).upload(file(1000)), gateway(carol).upload(file(24))]);
    await gateway(carol).create(note);
    await gateway(bob).upload(file(5));
    expect(await gateway(carol).usage({})).toEqual({ stored_bytes: 1024 });
    await gateway(carol).delete({ id: a!.id });
    expect(await gateway(carol).usage({})).toEqual({ stored_bytes: 24 });
  });

  it('only the ingest worker reaches the pipeline, and it reaches nothing else', async () => {
    const c = await gateway().create(note);
    await expect(as('gateway', alice).pipeline.claim({ capture_id: c.id, run_id: newId('run') })).rejects.toMatchObject(
      { data: { code: 'FORBIDDEN' } },
    );
    await expect(as('ingest-worker', alice).create(note)).rejects.toMatchObject({ data: { code: 'FORBIDDEN' } });
  });
});
