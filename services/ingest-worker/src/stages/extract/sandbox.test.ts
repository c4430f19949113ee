import { randomBytes } from 'node:crypto';
import { docx, pdf, pdfBomb } from '@kg/test-hostile-files';
import { afterAll, describe, expect, it } from 'vitest';
import type { ContentJob } from './content';
import { stageFailure } from './fixtures';
import { sandboxEntry } from './sandbox-entry';
import { createSandbox, exitReason, type SandboxOptions } from './sandbox';

const settings: SandboxOptions['settings'] = {
  zip: { maxInflatedBytes: 100 * 1024 * 1024, maxEntries: 100, maxRatio: 100 },
  ocrEnabled: false,
  ocrTimeoutMs: 10_000,
};
const sandboxes: ReturnType<typeof createSandbox>[] = [];
/** How each extraction ended, as the worker's metrics hear it. */
const outcomes: string[] = [];
const sandbox = (over: Partial<SandboxOptions> = {}) => {
  const s = createSandbox({
    childEntry: sandboxEntry,
    processes: 2,
    memoryLimitMb: 256,
    outputMaxBytes: 1024 * 1024,
    settings,
    onOutcome: (o) => outcomes.push(o),
    ...over,
  });
  sandboxes.push(s);
  return s;
};
afterAll(() => Promise.all(sandboxes.map((s) => s.close())));

const job = (format: ContentJob['format'], bytes: Buffer): ContentJob => ({
  format,
  bytes,
  text: null,
  charset: null,
  url: null,
});
const failure = stageFailure;
const rss = () => process.memoryUsage().rss;

describe('extraction sandbox', () => {
  it('extracts in a child process: a DOCX and a PDF come back as markdown', async () => {
    const s = sandbox();
    const [d, p] = await Promise.all([
      s.run(job('docx', docx({ heading: 'Sandboxed', paragraphs: ['Parsed elsewhere.'] })), 30_000),
      s.run(job('pdf', pdf({ lines: ['A page.'] })), 30_000),
    ]);
    expect(d).toMatchObject({ out: { format: 'docx', markdown: '# Sandboxed\n\nParsed elsewhere.' } });
    expect(d.models[0]).toMatch(/^mammoth/);
    expect(p.out).toMatchObject({ format: 'pdf', markdown: 'A page.' });
  });

  it('kills a PDF FlateDecode bomb (1 GiB) at the memory limit; this process does not grow', async () => {
    const before = rss();
    const err = await failure(sandbox().run(job('pdf', pdfBomb({ inflatedBytes: 1024 ** 3 })), 60_000));
    expect(err).toMatchObject({ retryable: false, message: 'memory exceeds the 256 MiB limit' });
    expect(rss() - before).toBeLessThan(100 * 1024 * 1024);
    expect(outcomes.at(-1)).toBe('memory');
  }, 90_000);

  it('refuses an answer past the output limit', async () => {
    // ~1.5 MB of text that compresses like prose (hex), not like a bomb.
    const long = Array.from({ length: 300 }, () => randomBytes(2500).toString('hex'));
    const err = await failure(sandbox().run(job('docx', docx({ heading: 'Long', paragraphs: long })), 30_000));
    expect(err).toMatchObject({ retryable: false, message: 'output exceeds the 1 MiB limit' });
    expect(outcomes.at(-1)).toBe('output');
  });

  it('kills an extraction past its wall time limit', async () => {
    const html = `<html><body>${'<div><p>nested <b>text</b> and more</p></div>'.repeat(100_000)}</body></html>`;
    const err = await failure(sandbox().run({ format: 'html', bytes: null, text: html, charset: null, url: null }, 50));
    expect(err).toMatchObject({ retryable: false, message: 'wall time exceeds the 50 ms limit' });
    expect(outcomes.at(-1)).toBe('time');
  });

  it("passes a parser's own refusal back as it is", async () => {
    const err = await failure(sandbox().run(job('pdf', Buffer.from('%PDF-1.4 garbage')), 30_000));
    expect(err.retryable).toBe(false);
    expect(err.message).toMatch(/^not a readable PDF/);
    expect(outcomes.at(-1)).toBe('refused');
  });

  it('runs at most `processes` children at once; close stops them and fails their jobs retryably', async () => {
    const s = sandbox({ processes: 1 });
    const html = `<html><body>${'<p>slow</p>'.repeat(200_000)}</body></html>`;
    const first = failure(s.run({ format: 'html', bytes: null, text: html, charset: null, url: null }, 60_000));
    const second = failure(s.run(job('pdf', pdf({ lines: ['x'] })), 60_000));
    await new Promise((r) => setTimeout(r, 50));
    expect(s.stats).toEqual({ running: 1, waiting: 1 });
    await s.close();
    expect((await first).retryable).toBe(true);
    expect((await second).retryable).toBe(true);
    expect(s.stats).toEqual({ running: 0, waiting: 0 });
  });
});

describe('why a sandbox process ended', () => {
  const limits = { memoryLimitMb: 256, timeoutMs: 30_000, cpuSeconds: 35 };
  const exit = (over: Partial<Parameters<typeof exitReason>[0]>) =>
    exitReason({ code: null, signal: null, stderr: '', killedFor: null, ...over }, limits).message;

  it('names the limit it passed', () => {
    expect(exit({ signal: 'SIGKILL', killedFor: 'memory' })).toBe('memory exceeds the 256 MiB limit');
    expect(exit({ signal: 'SIGKILL', killedFor: 'time' })).toBe('wall time exceeds the 30 s limit');
    expect(exit({ signal: 'SIGXCPU' })).toBe('CPU time exceeds the 35 s limit');
    // V8 gives up when its heap or the address space (RLIMIT_AS) runs out.
    expect(exit({ signal: 'SIGABRT' })).toBe('memory exceeds the 256 MiB limit');
    expect(exit({ signal: 'SIGTRAP', stderr: '# Fatal process out of memory: Zone' })).toBe(
      'memory exceeds the 256 MiB limit',
    );
    expect(exit({ code: 134 })).toBe('memory exceeds the 256 MiB limit');
  });

  it('says a crash is a crash, permanently', () => {
    expect(exit({ signal: 'SIGSEGV' })).toBe('the extractor crashed (SIGSEGV)');
    expect(exit({ code: 3 })).toBe('the extractor stopped (exit code 3)');
    expect(exitReason({ code: 3, signal: null, stderr: '', killedFor: null }, limits).retryable).toBe(false);
  });
});
