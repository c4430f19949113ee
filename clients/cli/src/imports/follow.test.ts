import { describe, expect, it } from 'vitest';
import { ApiError, type Import } from '@kg/sdk';
import { StoppedFollowing, followImport } from './follow.ts';
import { anImport } from './an-import.ts';
import { plainView } from './view.ts';

/** A GET /imports/:id that answers each of `answers` in turn (an Error is thrown), then the last again. */
function scripted(answers: Array<Import | Error>) {
  const calls: string[] = [];
  let i = 0;
  const get = async (id: string) => {
    calls.push(id);
    const a = answers[Math.min(i++, answers.length - 1)]!;
    if (a instanceof Error) throw a;
    return a;
  };
  return { get, calls };
}

const running = (read: number) => anImport({ status: 'running', progress: { bytes_read: read, size_bytes: 2048 } });

describe('followImport', () => {
  it('looks until the import is final, showing each look, and answers the final one', async () => {
    const done = anImport({ status: 'completed', progress: { bytes_read: 2048, size_bytes: 2048 } });
    const { get, calls } = scripted([anImport({ status: 'queued' }), running(512), running(1024), done]);
    const seen: string[] = [];
    const final = await followImport(get, 'imp_01jdtest', { update: (i) => seen.push(i.status) }, { intervalMs: 1 });
    expect(final).toBe(done);
    expect(seen).toEqual(['queued', 'running', 'running', 'completed']);
    expect(calls).toEqual(Array(4).fill('imp_01jdtest'));
  });

  it('failed and cancelled end it too', async () => {
    for (const status of ['failed', 'cancelled'] as const) {
      const { get } = scripted([running(0), anImport({ status })]);
      expect((await followImport(get, 'imp_x', { update: () => undefined }, { intervalMs: 1 })).status).toBe(status);
    }
  });

  it('a 429 is waited out as Retry-After says, then it goes on', async () => {
    const { get, calls } = scripted([
      new ApiError({ status: 429, retryAfterSeconds: 0.05 }),
      anImport({ status: 'completed' }),
    ]);
    const started = Date.now();
    await followImport(get, 'imp_x', { update: () => undefined }, { intervalMs: 1 });
    expect(Date.now() - started).toBeGreaterThanOrEqual(45);
    expect(calls).toHaveLength(2);
  });

  it("another tenant's id (404) ends it with the API's error at once", async () => {
    const { get, calls } = scripted([new ApiError({ status: 404, title: 'Not Found' })]);
    await expect(followImport(get, 'imp_other', { update: () => undefined }, { intervalMs: 1 })).rejects.toMatchObject({
      status: 404,
    });
    expect(calls).toHaveLength(1);
  });

  it('an abort (Ctrl-C) stops between looks with the last import seen, without waiting out the interval', async () => {
    const abort = new AbortController();
    const { get } = scripted([running(100)]);
    const started = Date.now();
    const following = followImport(
      get,
      'imp_x',
      { update: () => setTimeout(() => abort.abort(), 10) },
      { intervalMs: 60_000, signal: abort.signal },
    );
    const e = await following.catch((err: unknown) => err);
    expect(e).toBeInstanceOf(StoppedFollowing);
    expect((e as StoppedFollowing).last?.progress.bytes_read).toBe(100);
    expect(Date.now() - started).toBeLessThan(5000);
  });
});

describe('plainView', () => {
  it('writes a line when the import moved, at most every 2 s, and at once on a status change', () => {
    let now = 0;
    const lines: string[] = [];
    const view = plainView(
      () => now,
      (l) => lines.push(l),
    );
    view.update(running(0));
    view.update(running(0)); // nothing moved
    now = 500;
    view.update(running(100)); // moved, but too soon
    now = 2100;
    view.update(running(200));
    now = 2200;
    view.update(anImport({ status: 'completed', progress: { bytes_read: 2048, size_bytes: 2048 } }));
    expect(lines).toEqual([
      expect.stringContaining('running 0% (0 B of 2.0 KiB)'),
      expect.stringContaining('running 9% (200 B of 2.0 KiB)'),
      expect.stringContaining('completed 100%'),
    ]);
  });
});
