import { TRPCClientError } from '@trpc/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '@kg/logger';
import { pipelineConfigSchema } from '../config';
import { createStages, type Stages } from '../pipeline';
import { runCapture } from '../runner';
import type { RunnerDeps } from '../run-types';
import { fakeServices } from '../testing';
import { proposalText } from './propose';

const logger = createLogger('test', 'silent');
const policy = { stageTimeoutMs: 2000, stageAttempts: 3, retryBackoffMs: 1, maxClaims: 3, leaseMs: 60_000 };
let stages: Stages;
beforeAll(() => {
  stages = createStages(pipelineConfigSchema.parse({ OCR_ENABLED: 'false' }));
});
afterAll(() => stages.sandbox.close());

const problem = (status: number) =>
  new TRPCClientError('peer', {
    result: { error: { message: 'peer', code: -32000, data: { problem: { status, title: 'Peer' } } } },
  } as never);

const depsOf = (fake: ReturnType<typeof fakeServices>): RunnerDeps => ({
  captures: fake.capturesHandle,
  graph: fake.graphHandle,
  search: fake.searchHandle,
  logger,
  policy,
  stages,
});

describe('propose stage', () => {
  it('asks search for nodes similar to the node (search leaves the node out) and records graph’s proposals', async () => {
    const fake = fakeServices();
    const job = fake.add({ title: 'Sourdough', raw_text: 'Feed the starter flour and water every day.' });
    const nodeId = `node_${job.capture_id.slice(4)}`;
    fake.similar.push({ id: nodeId, score: 0.99 }, { id: 'node_other', score: 0.71 });
    expect(await runCapture(depsOf(fake), job)).toBe('processed');
    expect(fake.similarCalls).toEqual([{ node_id: nodeId, exclude_ids: [] }]);
    expect(fake.proposals.get(job.capture_id)).toEqual([{ id: 'node_other', score: 0.71 }]);
    const stage = fake.captures.get(job.capture_id)!.run.stages.find((s) => s.name === 'propose')!;
    expect(stage.model).toMatch(/test-embedder/);
    expect(stage.input_digest).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(stage.output).toMatchObject({
      node_id: nodeId,
      candidates: 1,
      proposals: [{ kind: 'link', target_id: 'node_other', score: 0.71, reason: 'similar (0.71)' }],
    });
  });

  it('resumes at propose after a crash without writing the node again', async () => {
    const fake = fakeServices();
    const job = fake.add({ raw_text: 'Resume at the last stage.' });
    let calls = 0;
    const broken = {
      ...fake.searchHandle,
      as: () => ({
        links: {
          similar: async () => {
            calls++;
            throw new Error('process killed');
          },
        },
      }),
    } as unknown as RunnerDeps['search'];
    await runCapture({ ...depsOf(fake), search: broken, policy: { ...policy, stageAttempts: 1 } }, job);
    const c = fake.captures.get(job.capture_id)!;
    expect(calls).toBe(1);
    expect(c.run.stages.map((s) => s.name)).toEqual(['extract', 'summarise', 'node']);
    // The deferred run is claimed again: only propose runs.
    expect(await runCapture(depsOf(fake), job)).toBe('processed');
    expect(c.run.stages.map((s) => s.name)).toEqual(['extract', 'summarise', 'node', 'propose']);
    expect(fake.nodes.get(c.node_ids[0]!)!.writes).toBe(1);
  });

  it('retries a search 503 and fails the capture at propose on a 4xx', async () => {
    const fake = fakeServices();
    const job = fake.add({ raw_text: 'Search says no.' });
    let calls = 0;
    const search = (status: number) =>
      ({
        service: 'search',
        as: () => ({
          links: {
            similar: async () => {
              calls++;
              throw problem(status);
            },
          },
        }),
      }) as unknown as RunnerDeps['search'];
    expect(await runCapture({ ...depsOf(fake), search: search(400) }, job)).toBe('failed');
    expect(calls).toBe(1);
    expect(fake.captures.get(job.capture_id)!.error).toMatch(/^propose: search answered 400/);
    const job2 = fake.add({ raw_text: 'Search is down.' });
    calls = 0;
    expect(await runCapture({ ...depsOf(fake), search: search(503) }, job2)).toBe('deferred');
    expect(calls).toBe(3);
  });

  it('compares by title, summary and body start, at most 10,000 characters', () => {
    expect(proposalText('T', '', 'body')).toBe('T\n\nbody');
    expect(proposalText('T', 'S', 'x'.repeat(20_000))).toHaveLength(10_000);
  });
});
