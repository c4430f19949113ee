import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createLogger } from '@kg/logger';
import { pipelineConfigSchema } from './config';
import { createStages, type Stages } from './pipeline';
import { runCapture } from './runner';
import type { RunnerDeps } from './run-types';
import { permanent, transient } from './stages/result';
import { createSweeper } from './sweeper';
import { fakeServices, invalidRequest } from './testing';

const logger = createLogger('test', 'silent');
const policy = { stageTimeoutMs: 30_000, stageAttempts: 3, retryBackoffMs: 1, maxClaims: 3, leaseMs: 60_000 };
let stages: Stages;
let server: http.Server;
let base: string;

beforeAll(async () => {
  stages = createStages(pipelineConfigSchema.parse({ OCR_ENABLED: 'false', FETCH_ALLOWLIST: '127.0.0.1' }));
  server = http.createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(
      '<html><head><title>Bees</title></head><body><article><p>Bees pollinate flowers and make honey. A hive holds thousands of bees.</p></article></body></html>',
    );
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await stages.sandbox.close();
  await new Promise((r) => server.close(r));
});

/** Wraps the real stages to count calls and inject failures. */
function counted(fake: ReturnType<typeof fakeServices>, over: Partial<Stages> = {}) {
  const calls: string[] = [];
  const wrap =
    <A extends unknown[], R>(name: string, fn: (...a: A) => Promise<R>) =>
    (...a: A) => {
      calls.push(name);
      return fn(...a);
    };
  const s = { ...stages, ...over };
  const deps: RunnerDeps = {
    captures: fake.capturesHandle,
    graph: fake.graphHandle,
    search: fake.searchHandle,
    logger,
    policy,
    stages: {
      ...s,
      fetch: wrap('fetch', s.fetch),
      extract: wrap('extract', s.extract),
      summarise: wrap('summarise', s.summarise),
    },
  };
  return { deps, calls };
}

describe('runner', () => {
  it('runs a note through extract, summarise and node, recording each stage with its model and digest', async () => {
    const fake = fakeServices();
    const job = fake.add({ title: 'Honey', raw_text: 'Bees make honey from nectar. Honey keeps for years.' });
    const { deps, calls } = counted(fake);
    expect(await runCapture(deps, job)).toBe('processed');
    const c = fake.captures.get(job.capture_id)!;
    expect(calls).toEqual(['extract', 'summarise']);
    expect(c.run.stages.map((s) => [s.name, s.model])).toEqual([
      ['extract', 'passthrough@1'],
      ['summarise', expect.stringMatching(/^kg-extractive@1/)],
      ['node', 'graph captures.upsertNode@1'],
      ['propose', expect.stringMatching(/^propose@1 \(links: search suggestions, test-embedder cosine/)],
    ]);
    for (const s of c.run.stages) {
      expect(s.input_digest).toMatch(/^sha256:[0-9a-f]{64}$/);
      expect(s.finished_at >= s.started_at).toBe(true);
    }
    expect(c.log).toEqual([
      'processing_started',
      'stage_completed:extract',
      'stage_completed:summarise',
      'stage_completed:node',
      'stage_completed:propose',
      'processed',
    ]);
    expect(c.node_ids).toEqual([`node_${job.capture_id.slice(4)}`]);
    expect(c.markdown).toBe('Bees make honey from nectar. Honey keeps for years.');
    expect(fake.nodes.get(c.node_ids[0]!)).toMatchObject({ title: 'Honey', tags: expect.arrayContaining(['honey']) });
  });

  it('fetches a URL capture (allowlisted local server) and keeps the fetched URL in metadata', async () => {
    const fake = fakeServices();
    const job = fake.add({ title: 'Bees', content_type: 'article', url: `${base}/bees` });
    const { deps } = counted(fake);
    expect(await runCapture(deps, job)).toBe('processed');
    const c = fake.captures.get(job.capture_id)!;
    expect(c.run.stages.map((s) => s.name)).toEqual(['fetch', 'extract', 'summarise', 'node', 'propose']);
    expect(c.run.stages[0]!.output).toMatchObject({ status: 200, mime: 'text/html', url: `${base}/bees` });
    expect(c.markdown).toContain('Bees pollinate flowers');
    expect(c.metadata).toMatchObject({ format: 'html', fetched_url: `${base}/bees` });
  });

  it('resumes after a crash: completed stages are not run again, and the node is written once', async () => {
    const fake = fakeServices();
    const job = fake.add({ raw_text: 'Resume me. Twice would be wrong.' });
    const crash = counted(fake, {
      summarise: () => {
        throw new Error('process killed');
      },
    });
    // A crash mid-stage: the worker dies, nothing is recorded after extract, the lease runs out.
    await runCapture({ ...crash.deps, policy: { ...policy, stageAttempts: 1 } }, job).catch(() => undefined);
    const c = fake.captures.get(job.capture_id)!;
    c.run.status = 'processing';
    c.run.lease_until = 0;
    c.run.stages.splice(1);
    expect(c.run.stages.map((s) => s.name)).toEqual(['extract']);
    const again = counted(fake);
    expect(await runCapture(again.deps, job)).toBe('processed');
    expect(again.calls).toEqual(['summarise']);
    expect(c.run.attempt).toBe(2);
    expect(c.run.stages.map((s) => s.name)).toEqual(['extract', 'summarise', 'node', 'propose']);
    expect(fake.nodes.get(c.node_ids[0]!)!.writes).toBe(1);
  });

  it('retries a retryable stage failure within the claim and then succeeds', async () => {
    const fake = fakeServices();
    const job = fake.add({ raw_text: 'Flaky text.' });
    let n = 0;
    const { deps } = counted(fake, {
      summarise: async (input) => {
        if (++n < 3) throw transient('LLM answered HTTP 503');
        return stages.summarise(input);
      },
    });
    expect(await runCapture(deps, job)).toBe('processed');
    expect(n).toBe(3);
  });

  it('fails at once on a permanent error, naming the stage', async () => {
    const fake = fakeServices();
    const job = fake.add({ title: 'Inner', content_type: 'article', url: 'http://10.0.0.1/admin' });
    const { deps } = counted(fake, {});
    const strict = createStages(pipelineConfigSchema.parse({ OCR_ENABLED: 'false' }));
    expect(await runCapture({ ...deps, stages: strict }, job)).toBe('failed');
    const c = fake.captures.get(job.capture_id)!;
    expect(c.error).toBe(
      'fetch: refused: the address of 10.0.0.1 is not public (private); only public addresses are fetched',
    );
    expect(c.log.at(-1)).toBe('failed:fetch');
  });

  it('defers a stage that keeps timing out while claims are left, then fails it', async () => {
    const fake = fakeServices();
    const job = fake.add({ raw_text: 'Slow.' });
    const { deps } = counted(fake, { summarise: () => new Promise(() => {}) });
    const fast = { ...deps, policy: { ...policy, stageTimeoutMs: 20, stageAttempts: 2, maxClaims: 2 } };
    expect(await runCapture(fast, job)).toBe('deferred');
    const c = fake.captures.get(job.capture_id)!;
    expect(c.log.at(-1)).toBe('stage_failed:summarise');
    expect(c.run.status).toBe('pending');
    expect(await runCapture(fast, job)).toBe('failed');
    expect(c.error).toBe('summarise: summarise exceeded 20 ms');
  });

  it('gives up on a run that keeps killing its worker (claims exhausted)', async () => {
    const fake = fakeServices();
    const job = fake.add({ raw_text: 'Poison.' });
    const c = fake.captures.get(job.capture_id)!;
    c.run.attempt = policy.maxClaims;
    c.run.status = 'processing';
    const { deps } = counted(fake);
    expect(await runCapture(deps, job)).toBe('failed');
    expect(c.error).toBe('extract: gave up after 3 attempts (the worker stopped during this stage)');
  });

  it('ends a capture whose runs keep killing the worker `failed` after the default cap of 3 attempts', async () => {
    const cap = pipelineConfigSchema.parse({}).INGEST_MAX_CLAIMS;
    expect(cap).toBe(3);
    let now = 1_000_000;
    const fake = fakeServices(() => now);
    const job = fake.add({ raw_text: 'Poison that kills whatever process reads it.' });
    const c = fake.captures.get(job.capture_id)!;
    const sweeper = createSweeper({ captures: fake.capturesHandle, logger, afterMs: 60_000, intervalMs: 1000 });
    // Each run dies inside extract: its promise never settles (the process is gone), nothing is
    // recorded, the lease runs out and the sweeper re-queues the capture for the next worker.
    const deaths: (() => void)[] = [];
    let runs = 0;
    const { deps } = counted(fake, {
      extract: () => {
        runs++;
        return new Promise((_, reject) => deaths.push(() => reject(permanent('gone'))));
      },
    });
    const dying = { ...deps, policy: { ...policy, maxClaims: cap, stageTimeoutMs: 600_000 } };
    const abandoned: Promise<unknown>[] = [];
    for (let claim = 1; claim <= 10 && c.run.status !== 'failed'; claim++) {
      const run = runCapture(dying, job);
      abandoned.push(run.catch(() => undefined));
      await vi.waitFor(() => expect(runs === claim || c.run.status === 'failed').toBe(true));
      now += policy.leaseMs + 60_000;
      await sweeper.runOnce();
    }
    expect(runs).toBe(3);
    expect(c.run.status).toBe('failed');
    expect(c.error).toBe('extract: gave up after 3 attempts (the worker stopped during this stage)');
    expect(c.log.filter((l) => l === 'requeued')).toHaveLength(3);
    expect(c.log.at(-1)).toBe('failed:extract');
    for (const die of deaths) die();
    await Promise.all(abandoned);
  });

  it('fails a capture whose extracted text is longer than a capture keeps, at once and naming the limit', async () => {
    const fake = fakeServices();
    const job = fake.add({ title: 'Huge log', raw_text: 'x' });
    const { deps } = counted(fake, {
      extract: async () => ({
        output: { markdown: 'word '.repeat(2_000_001), title: null, format: 'text', metadata: {}, notes: [] },
        model: 'passthrough@1',
        input_digest: '0'.repeat(64),
      }),
    });
    expect(await runCapture(deps, job)).toBe('failed');
    const c = fake.captures.get(job.capture_id)!;
    expect(c.error).toBe('extract: the extracted text has 10,000,005 characters; a capture keeps at most 10,000,000');
    expect(c.log.at(-1)).toBe('failed:extract');
  });

  it('ends a run whose completion the captures service refuses (400) `failed`, instead of re-queueing it forever', async () => {
    let now = 1_000_000;
    const fake = fakeServices(() => now);
    const job = fake.add({ raw_text: 'Refused at the end.' });
    const c = fake.captures.get(job.capture_id)!;
    const sweeper = createSweeper({ captures: fake.capturesHandle, logger, afterMs: 60_000, intervalMs: 1000 });
    const { deps } = counted(fake);
    const captures = deps.captures.as(null);
    const refusing = {
      ...deps,
      captures: {
        ...deps.captures,
        as: () => ({
          pipeline: {
            ...captures.pipeline,
            complete: () => Promise.reject(invalidRequest('markdown: Too big')),
          },
        }),
      } as unknown as RunnerDeps['captures'],
    };
    for (let claim = 1; claim <= 5 && c.run.status !== 'failed'; claim++) {
      await runCapture(refusing, job).catch(() => 'interrupted');
      now += policy.leaseMs + 60_000;
      await sweeper.runOnce();
    }
    expect(c.run.status).toBe('failed');
    expect(c.run.attempt).toBe(1);
    expect(c.error).toBe('complete: captures answered 400: markdown: Too big');
  });

  it('skips a capture leased by another worker, and drops a run that lost its claim (409)', async () => {
    const fake = fakeServices();
    const job = fake.add({ raw_text: 'Mine.' });
    const { deps } = counted(fake);
    const c = fake.captures.get(job.capture_id)!;
    c.run.status = 'processing';
    c.run.lease_until = Date.now() + 60_000;
    expect(await runCapture(deps, job)).toBe('skipped');
    c.run.lease_until = 0;
    const superseding = counted(fake, {
      summarise: async (input) => {
        c.run.run_id = 'run_01jd8x6q1bf5r3v2m9w7k4tzzz'; // a reingest queued a newer run meanwhile
        return stages.summarise(input);
      },
    });
    expect(await runCapture(superseding.deps, job)).toBe('dropped');
    expect(fake.nodes.size).toBe(0);
    expect(await runCapture(deps, { ...job, run_id: 'run_01jd8x6q1bf5r3v2m9w7k4tzzy' })).toBe('skipped');
  });

  it('a permanent StageError helper marks the error as not retryable', () => {
    expect(permanent('x').retryable).toBe(false);
  });
});
