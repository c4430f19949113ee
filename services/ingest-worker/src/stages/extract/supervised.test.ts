import { afterAll, describe, expect, it } from 'vitest';
import type { ContentJob } from './content';
import { stageFailure } from './fixtures';
import type { SandboxOutcome } from './sandbox';
import { createSupervisedSandbox, type SupervisedSandbox } from './supervised';

const outcomes: SandboxOutcome[] = [];
const made: SupervisedSandbox[] = [];
const sandbox = (outputMaxBytes = 1024 * 1024) => {
  const s = createSupervisedSandbox({
    processes: 2,
    memoryLimitMb: 256,
    outputMaxBytes,
    settings: {
      zip: { maxInflatedBytes: 1e6, maxEntries: 50, maxRatio: 100 },
      ocrEnabled: false,
      ocrTimeoutMs: 10_000,
    },
    onOutcome: (o) => outcomes.push(o),
  });
  made.push(s);
  return s;
};
afterAll(() => Promise.all(made.map((s) => s.close())));

const page = (title: string, words = 40): ContentJob => ({
  format: 'html',
  bytes: null,
  text: `<html><head><title>${title}</title></head><body><article><h1>${title}</h1><p>${'Prose worth keeping. '.repeat(words)}</p></article></body></html>`,
  charset: null,
  url: 'https://example.test/page',
});
const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};
const failure = stageFailure;

describe('supervised extraction sandbox', () => {
  it('runs every job through one supervisor process, started with the first job', async () => {
    const s = sandbox();
    expect(s.supervisorPid).toBeNull();
    const first = await s.run(page('First'), 30_000);
    const pid = s.supervisorPid!;
    expect(first.out.markdown).toContain('Prose worth keeping.');
    const more = await Promise.all(['Second', 'Third', 'Fourth'].map((t) => s.run(page(t), 30_000)));
    expect(more.map((r) => r.out.title)).toEqual(['Second', 'Third', 'Fourth']);
    expect(s.supervisorPid).toBe(pid);
    expect(outcomes.filter((o) => o === 'ok').length).toBeGreaterThanOrEqual(4);
  });

  it('passes a limit found in the sandbox on as it is: permanent, named, and told to the metrics', async () => {
    const s = sandbox(1024);
    const err = await failure(s.run(page('Long', 2000), 30_000));
    expect(err).toMatchObject({ retryable: false, message: 'output exceeds the 0 MiB limit' });
    expect(outcomes.at(-1)).toBe('output');
  });

  it('fails the jobs of a supervisor that dies, retryably, and starts another for the next job', async () => {
    const s = sandbox();
    await s.run(page('Warm'), 30_000);
    const pid = s.supervisorPid!;
    const held = failure(s.run(page('Held', 4000), 30_000));
    process.kill(pid, 'SIGKILL');
    const err = await held;
    expect(err.retryable).toBe(true);
    expect(err.message).toMatch(/supervisor stopped \(SIGKILL\)/);
    const next = await s.run(page('After'), 30_000);
    expect(next.out.title).toBe('After');
    expect(s.supervisorPid).not.toBe(pid);
  });

  it('ends the supervisor on close and refuses jobs after it', async () => {
    const s = sandbox();
    await s.run(page('Last'), 30_000);
    const pid = s.supervisorPid!;
    await s.close();
    expect(alive(pid)).toBe(false);
    const err = await failure(s.run(page('Late'), 30_000));
    expect(err).toMatchObject({ retryable: true, message: 'the extraction sandbox is closed' });
  });
});
