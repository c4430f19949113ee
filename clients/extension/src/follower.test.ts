import { describe, expect, it } from 'vitest';
import { ApiProblem, Unreachable, type Capture } from './api';
import type { StreamHandlers } from './event-stream';
import type { CaptureEvent } from './events';
import { FOLLOW_MS, STORAGE_KEY, type Followed } from './followed';
import { Follower } from './follower';
import type { KeyValueStorage, Settings } from './settings';

const NODE = 'node_01jd8x6q1bf5r3v2m9w7k4t0zb';
const capId = (n: number) => `cap_01jd8x6q1bf5r3v2m9w7k4t0${String(n).padStart(2, '0')}`;
const capture = (n: number, over: Partial<Capture> = {}): Capture =>
  ({
    id: capId(n),
    title: `Page ${n}`,
    url: `https://example.com/${n}`,
    status: 'pending',
    node_ids: [],
    error: null,
    ...over,
  }) as Capture;
const changed = (n: number, version: number, status: Capture['status'], over = {}): CaptureEvent => ({
  id: `evt_${version}`,
  type: 'capture.changed',
  occurred_at: '2026-11-28T10:00:00.000Z',
  version,
  data: { capture_id: capId(n), status, previous_status: null, node_ids: [], error: null, ...over },
});

function memoryStorage(): KeyValueStorage {
  const data = new Map<string, unknown>();
  return {
    async get(key) {
      return data.has(key) ? { [key]: structuredClone(data.get(key)) } : {};
    },
    async set(items) {
      for (const [k, v] of Object.entries(items)) data.set(k, structuredClone(v));
    },
  };
}

/** A follower with a server that answers `captures` (missing: 404), and the streams it opened. */
function rig() {
  const captures = new Map<string, Capture | 'down'>();
  const streams: { handlers: StreamHandlers; settings: Settings; closed: boolean }[] = [];
  const changes: Followed[][] = [];
  const reads: string[] = [];
  const state = { now: 1_000, settings: { server: 'https://kg.example.com', apiKey: 'key_a' } as Settings | null };
  /** Held reads: a read resolves when the test says so. */
  const gate = { hold: false, release: [] as (() => void)[] };
  const follower = new Follower({
    storage: memoryStorage(),
    settings: async () => state.settings,
    api: () => ({
      get: async (id: string) => {
        reads.push(id);
        if (gate.hold) await new Promise<void>((r) => gate.release.push(r));
        const c = captures.get(id);
        if (c === 'down') throw new Unreachable('offline');
        if (!c) throw new ApiProblem(404, 'Capture not found', null);
        return structuredClone(c);
      },
      retry: async (id: string) => {
        const c = captures.get(id) as Capture;
        if (c.status !== 'failed') throw new ApiProblem(409, 'not failed', null);
        const next = { ...c, status: 'pending' as const, error: null };
        captures.set(id, next);
        if (gate.hold) await new Promise<void>((r) => gate.release.push(r));
        return structuredClone(next);
      },
    }),
    open: (settings, handlers) => {
      const s = { handlers, settings, closed: false };
      streams.push(s);
      return { close: () => void (s.closed = true) };
    },
    onChange: (c) => void changes.push(c),
    now: () => state.now,
  });
  const open = () => streams.filter((s) => !s.closed);
  const settle = () => new Promise((r) => setTimeout(r, 5));
  return { follower, captures, streams, open, changes, reads, state, gate, settle };
}

describe('Follower', () => {
  it('follows a saved capture live until it is processed, then closes the stream', async () => {
    const { follower, captures, open, changes, settle } = rig();
    captures.set(capId(1), capture(1));
    await follower.track(capture(1));
    expect(open()).toHaveLength(1);
    open()[0]!.handlers.onEvent(changed(1, 2, 'processing'));
    open()[0]!.handlers.onEvent(changed(1, 3, 'processed', { node_ids: [NODE] }));
    await settle();
    expect((await follower.list())[0]).toMatchObject({ status: 'processed', node_ids: [NODE] });
    expect(changes.flat().map((f) => f.status)).toEqual(['pending', 'processing', 'processed']);
    expect(open()).toHaveLength(0);
  });

  it('ignores an event of another capture: nothing written, no badge moved', async () => {
    const { follower, open, changes, settle, streams: all } = rig();
    const streams = () => all;
    await follower.track(capture(1));
    changes.length = 0;
    open()[0]!.handlers.onEvent(changed(2, 9, 'processed'));
    open()[0]!.handlers.onEvent(changed(1, 2, 'processed'));
    // Older than what is held: out of order.
    open()[0]!.handlers.onEvent(changed(1, 1, 'processing'));
    await settle();
    expect(changes.flat().map((f) => [f.id, f.status])).toEqual([[capId(1), 'processed']]);
    // A duplicate of what was applied changes nothing either.
    streams()[0]!.handlers.onEvent(changed(1, 2, 'processed'));
    await settle();
    expect(changes).toHaveLength(1);
    expect(await follower.list()).toHaveLength(1);
  });

  it('re-reads the captures in flight on every (re)connection, with one entry each', async () => {
    const { follower, captures, open, reads, settle } = rig();
    captures.set(capId(1), capture(1));
    await follower.track(capture(1));
    const stream = open()[0]!;
    stream.handlers.onOpen();
    await settle();
    expect(reads).toEqual([capId(1)]);
    // Processed while the stream was down: the event is lost, the read on reconnection finds it.
    captures.set(capId(1), capture(1, { status: 'processed', node_ids: [NODE] }));
    stream.handlers.onOpen();
    await settle();
    expect(reads).toEqual([capId(1), capId(1)]);
    expect(await follower.list()).toEqual([
      expect.objectContaining({ id: capId(1), status: 'processed', node_ids: [NODE] }),
    ]);
    expect(open()).toHaveLength(0);
  });

  it('a read answered after a newer event does not undo it', async () => {
    const { follower, captures, open, gate, settle } = rig();
    captures.set(capId(1), capture(1, { status: 'processing' }));
    await follower.track(capture(1));
    gate.hold = true;
    const refreshing = follower.refresh();
    await settle();
    open()[0]!.handlers.onEvent(changed(1, 4, 'processed', { node_ids: [NODE] }));
    await settle();
    gate.release.forEach((r) => r());
    await refreshing;
    expect((await follower.list())[0]).toMatchObject({ status: 'processed', node_ids: [NODE] });
  });

  it('a capture processed before it was followed (a stream open already) is read once more', async () => {
    const { follower, captures, open, reads, streams, settle } = rig();
    await follower.track(capture(1));
    expect(streams).toHaveLength(1);
    // Capture 2 is made and processed at once: its events come before the background follows it.
    captures.set(capId(2), capture(2, { status: 'processed', node_ids: [NODE] }));
    open()[0]!.handlers.onEvent(changed(2, 3, 'processed', { node_ids: [NODE] }));
    await settle();
    await follower.track(capture(2));
    expect(streams).toHaveLength(1);
    expect(reads).toEqual([capId(2)]);
    expect((await follower.list())[0]).toMatchObject({ id: capId(2), status: 'processed', node_ids: [NODE] });
  });

  it('a retry whose events arrive before its answer keeps the newer state', async () => {
    const { follower, captures, open, settle, gate } = rig();
    captures.set(capId(1), capture(1));
    captures.set(capId(2), capture(2));
    await follower.track(capture(1));
    await follower.track(capture(2));
    open()[0]!.handlers.onEvent(changed(1, 3, 'failed', { error: 'HTTP 404 from example.com' }));
    await settle();
    captures.set(capId(1), capture(1, { status: 'failed', error: 'HTTP 404 from example.com' }));
    // The retry's run fails again before the answer of POST /retry arrives.
    gate.hold = true;
    const answer = follower.retry(capId(1));
    await settle();
    open()[0]!.handlers.onEvent(changed(1, 4, 'pending'));
    open()[0]!.handlers.onEvent(changed(1, 6, 'failed', { error: 'HTTP 404 again' }));
    captures.set(capId(1), capture(1, { status: 'failed', error: 'HTTP 404 again' }));
    await settle();
    gate.hold = false;
    gate.release.forEach((r) => r());
    await answer;
    await settle();
    expect((await follower.list()).find((f) => f.id === capId(1))).toMatchObject({
      status: 'failed',
      error: 'HTTP 404 again',
      version: 6,
    });
  });

  it('a popup keeps the stream open past the follow window; it closes when the popup does', async () => {
    const { follower, state, open, settle } = rig();
    await follower.track(capture(1));
    state.now += FOLLOW_MS + 1;
    // The 15-s comment wakes the check: out of the window, nobody watching.
    open()[0]!.handlers.onActivity!();
    await settle();
    expect(open()).toHaveLength(0);
    const unwatch = follower.watch();
    await settle();
    expect(open()).toHaveLength(1);
    unwatch();
    unwatch();
    await settle();
    expect(open()).toHaveLength(0);
  });

  it('a refused key stops the stream until the settings change', async () => {
    const { follower, state, streams, open, settle } = rig();
    await follower.track(capture(1));
    // The stream stopped on its own (401): it tells, and is over.
    streams[0]!.closed = true;
    streams[0]!.handlers.onEnd!('the API key was refused');
    await follower.ensure();
    expect(streams).toHaveLength(1);
    state.settings = { server: 'https://kg.example.com', apiKey: 'key_b' };
    await follower.ensure();
    await settle();
    expect(open().map((s) => s.settings.apiKey)).toEqual(['key_b']);
  });

  it('a failure shows its error; retry runs it again and follows it', async () => {
    const { follower, captures, open, settle } = rig();
    await follower.track(capture(1));
    open()[0]!.handlers.onEvent(changed(1, 3, 'failed', { error: 'HTTP 404 from example.com' }));
    await settle();
    expect((await follower.list())[0]).toMatchObject({ status: 'failed', error: 'HTTP 404 from example.com' });
    expect(open()).toHaveLength(0);
    captures.set(capId(1), capture(1, { status: 'failed', error: 'HTTP 404 from example.com' }));
    await follower.retry(capId(1));
    expect((await follower.list())[0]).toMatchObject({ status: 'pending', error: null });
    expect(open()).toHaveLength(1);
    await expect(follower.retry(capId(7))).rejects.toThrow('Not a capture this browser follows');
  });

  it('opening the popup reads every capture shown: deleted ones are marked, offline keeps what is known', async () => {
    const { follower, captures } = rig();
    for (const n of [1, 2, 3]) {
      captures.set(capId(n), capture(n));
      await follower.track(capture(n));
    }
    captures.set(capId(1), capture(1, { status: 'processed', node_ids: [NODE] }));
    captures.delete(capId(2));
    captures.set(capId(3), 'down');
    const list = await follower.refresh();
    expect(list.map((f) => [f.id, f.status, !!f.deleted])).toEqual([
      [capId(3), 'pending', false],
      [capId(2), 'pending', true],
      [capId(1), 'processed', false],
    ]);
  });

  it('stores the list under its key, so a restarted background (or a reopened popup) finds it', async () => {
    const storage = memoryStorage();
    const deps = {
      storage,
      settings: async () => null,
      api: () => ({}) as never,
      open: () => ({ close: () => undefined }),
    };
    await new Follower(deps).track(capture(1));
    expect(Object.keys(await storage.get(STORAGE_KEY))).toEqual([STORAGE_KEY]);
    expect(await new Follower(deps).list()).toEqual([expect.objectContaining({ id: capId(1) })]);
  });
});
