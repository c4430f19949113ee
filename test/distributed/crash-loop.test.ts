import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Capture, CaptureActivityList, type CaptureActivity } from '@kg/contracts';
import { api, conforms, newTenant, type Session } from '../e2e/support/client';
import { control, eventually } from './support/cluster-api';

/** INGEST_MAX_CLAIMS: the suite's ingest worker runs with the default. */
const CAP = 3;

/**
 * A page that never finishes answering: the worker's fetch stage stays in progress until the
 * worker is killed (well within the suite's 5 s INGEST_STAGE_TIMEOUT_MS, so each claim of the
 * run fetches it exactly once). Every request for it is counted: one per run started.
 */
let page: http.Server;
let pageUrl: string;
let fetches = 0;
beforeAll(async () => {
  page = http.createServer((req, res) => {
    if (req.url !== '/never-ends') {
      res.writeHead(404).end();
      return;
    }
    fetches++;
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.write('<!doctype html><html><head><title>Poison</title></head><body><p>The rest never comes');
  });
  await new Promise<void>((r) => page.listen(0, '127.0.0.1', r));
  pageUrl = `http://127.0.0.1:${(page.address() as AddressInfo).port}/never-ends`;
});
afterAll(async () => {
  // A failure midway may leave the worker stopped: the next test files need it.
  await control('start', 'ingest-worker');
  page.closeAllConnections();
  await new Promise((r) => page.close(r));
});

const capture = async (s: Session, id: string) =>
  conforms(Capture, (await api('GET', `/captures/${id}`, { auth: s.bearer })).body);
const activity = async (s: Session, id: string): Promise<CaptureActivity[]> =>
  conforms(CaptureActivityList, (await api('GET', `/captures/${id}/activity`, { auth: s.bearer })).body).data;
const claims = (entries: CaptureActivity[]) =>
  entries.filter((a) => a.kind === 'processing_started').map((a) => a.detail['attempt']);

async function create(s: Session, body: Record<string, unknown>): Promise<Capture> {
  const res = await api<Capture>('POST', '/captures', { auth: s.bearer, body: { source: 'api', ...body } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

describe('crash-looping capture (distributed)', () => {
  it(`a run whose worker is killed (SIGKILL) each time ends failed after ${CAP} attempts, is not run again, and the worker goes on`, async () => {
    const s = await newTenant('crash-loop');
    const poison = await create(s, { title: 'Poison page', content_type: 'article', url: pageUrl });

    for (let attempt = 1; attempt <= CAP; attempt++) {
      // The run is in progress: its claim is in the activity and the worker is reading the page.
      await eventually(
        async () => fetches >= attempt && claims(await activity(s, poison.id)).includes(attempt),
        60_000,
        50,
      );
      expect(fetches).toBe(attempt);
      await control('stop', 'ingest-worker', { signal: 'SIGKILL' });
      await control('start', 'ingest-worker');
    }

    // The sweeper re-queues the run once its lease has run out; the next claim gives up.
    const ended = await eventually(async () => {
      if (fetches > CAP) return 'fetched again';
      const c = await capture(s, poison.id);
      return c.status !== 'pending' && c.status !== 'processing' && c;
    }, 60_000);
    expect(fetches, 'the page was fetched again after the attempt cap').toBe(CAP);
    expect(ended).toMatchObject({
      status: 'failed',
      error: `fetch: gave up after ${CAP} attempts (the worker stopped during this stage)`,
    });
    const timeline = await activity(s, poison.id);
    expect(timeline.at(-1)).toMatchObject({
      kind: 'failed',
      detail: { stage: 'fetch', error: `gave up after ${CAP} attempts (the worker stopped during this stage)` },
    });
    // Claims 1..CAP each started the run (one fetch each); the one after them, if recorded, only gave up.
    const claimed = claims(timeline);
    expect(claimed.slice(0, CAP)).toEqual(Array.from({ length: CAP }, (_, i) => i + 1));
    expect(claimed.length).toBeLessThanOrEqual(CAP + 1);
    expect(timeline.filter((a) => a.kind === 'requeued')).toHaveLength(CAP);
    expect(timeline.some((a) => a.kind === 'stage_completed' || a.kind === 'stage_failed')).toBe(false);

    // The worker keeps serving: a normal capture created afterwards is processed.
    const note = await create(s, {
      title: 'Field note',
      content_type: 'note',
      raw_content: 'The heron fished at dawn near the reeds. The water was calm and cold.',
    });
    const done = await eventually(async () => {
      const c = await capture(s, note.id);
      return c.status !== 'pending' && c.status !== 'processing' && c;
    }, 60_000);
    expect(done.status, done.error ?? '').toBe('processed');
    expect(done.node_ids).toHaveLength(1);

    // Meanwhile the failed capture was left alone: not claimed nor fetched again.
    expect(await activity(s, poison.id)).toEqual(timeline);
    expect((await capture(s, poison.id)).status).toBe('failed');
    expect(fetches).toBe(CAP);
  }, 150_000);
});
