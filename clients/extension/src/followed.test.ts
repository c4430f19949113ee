import { describe, expect, it } from 'vitest';
import type { Capture } from './api';
import type { CaptureEvent } from './events';
import { FOLLOW_MS, MAX_FOLLOWED, applyEvent, applyRead, followedOf, inFlight, track, wanted } from './followed';

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

describe('the captures followed', () => {
  it('a new capture comes first, once, at most MAX_FOLLOWED of them', () => {
    let list = track([], capture(1), 0);
    list = track(list, capture(2), 1);
    list = track(list, capture(1, { status: 'pending' }), 2);
    expect(list.map((f) => f.id)).toEqual([capId(1), capId(2)]);
    for (let n = 3; n < 10; n++) list = track(list, capture(n), n);
    expect(list).toHaveLength(MAX_FOLLOWED);
    expect(list[0]).toMatchObject({ id: capId(9), version: 0, events: 0, follow_until: 9 + FOLLOW_MS });
  });

  it('the answer of a retry does not undo the events that came before it', () => {
    let list = applyEvent(track([], capture(1), 0), changed(1, 3, 'failed', { error: 'gone' }))!;
    const before = list[0]!.events;
    list = applyEvent(list, changed(1, 5, 'failed', { error: 'gone again' }))!;
    const retried = track(list, capture(1, { status: 'pending' }), 10, before);
    expect(retried[0]).toMatchObject({
      status: 'failed',
      error: 'gone again',
      version: 5,
      follow_until: 10 + FOLLOW_MS,
    });
    // Nothing came in between: the answer is the newest state.
    expect(track(list, capture(1, { status: 'pending' }), 10, list[0]!.events)[0]).toMatchObject({
      status: 'pending',
      error: null,
    });
  });

  it('an event moves its capture to processed with its nodes', () => {
    const list = track([], capture(1), 0);
    const next = applyEvent(list, changed(1, 2, 'processed', { node_ids: [NODE] }))!;
    expect(next[0]).toMatchObject({ status: 'processed', node_ids: [NODE], version: 2, events: 1 });
    expect(inFlight(next[0]!)).toBe(false);
  });

  it('an event of another capture, a duplicate or an older one changes nothing', () => {
    const list = applyEvent(track([], capture(1), 0), changed(1, 5, 'processing'))!;
    expect(applyEvent(list, changed(2, 9, 'processed'))).toBeNull();
    expect(applyEvent(list, changed(1, 5, 'processed'))).toBeNull();
    expect(applyEvent(list, changed(1, 4, 'failed'))).toBeNull();
    expect(applyEvent([], changed(1, 1, 'processed'))).toBeNull();
  });

  it('a failure keeps its error; a deletion marks the capture gone', () => {
    const list = track([], capture(1), 0);
    const failed = applyEvent(list, changed(1, 3, 'failed', { error: 'HTTP 404 from example.com' }))!;
    expect(failed[0]).toMatchObject({ status: 'failed', error: 'HTTP 404 from example.com' });
    const deleted = applyEvent(failed, {
      id: 'evt_9',
      type: 'capture.deleted',
      occurred_at: 'x',
      version: 4,
      data: { capture_id: capId(1) },
    })!;
    expect(deleted[0]).toMatchObject({ deleted: true, status: 'failed' });
    expect(inFlight(deleted[0]!)).toBe(false);
  });

  it('a read applies unless an event arrived while it was under way (the event is newer)', () => {
    const list = track([], capture(1), 0);
    const read = applyRead(list, capId(1), capture(1, { status: 'processing' }), 0)!;
    expect(read[0]).toMatchObject({ status: 'processing' });
    const afterEvent = applyEvent(list, changed(1, 3, 'processed', { node_ids: [NODE] }))!;
    // The read began before the event (0 events then): its older answer is dropped.
    expect(applyRead(afterEvent, capId(1), capture(1, { status: 'processing' }), 0)).toBeNull();
    expect(applyRead(afterEvent, capId(1), capture(1, { status: 'processed', node_ids: [NODE] }), 1)![0]).toMatchObject(
      { status: 'processed', node_ids: [NODE] },
    );
    // 404: deleted on the server.
    expect(applyRead(list, capId(1), null, 0)![0]).toMatchObject({ deleted: true });
    expect(applyRead(list, capId(7), capture(7), 0)).toBeNull();
  });

  it('reconnecting re-reads without a second entry for the same capture', () => {
    let list = track([], capture(1), 0);
    list = applyEvent(list, changed(1, 2, 'processing'))!;
    // The stream dropped; on reconnection the capture is read again, and the same event may come again.
    list = applyRead(list, capId(1), capture(1, { status: 'processed', node_ids: [NODE] }), 1)!;
    expect(applyEvent(list, changed(1, 2, 'processing'))).toBeNull();
    list = applyEvent(list, changed(1, 3, 'processed', { node_ids: [NODE] }))!;
    expect(list).toHaveLength(1);
    expect(list[0]).toMatchObject({ status: 'processed', node_ids: [NODE] });
  });

  it('the stream is wanted while a recent capture is in flight, or while a popup watches', () => {
    const list = track([], capture(1), 0);
    expect(wanted(list, 1, false)).toBe(true);
    expect(wanted(list, FOLLOW_MS + 1, false)).toBe(false);
    expect(wanted(list, FOLLOW_MS + 1, true)).toBe(true);
    const done = applyEvent(list, changed(1, 2, 'processed'))!;
    expect(wanted(done, 1, true)).toBe(false);
    expect(wanted([], 1, true)).toBe(false);
  });

  it('what is stored but is not a list reads as empty', () => {
    expect(followedOf(undefined)).toEqual([]);
    expect(followedOf({ id: 'x' })).toEqual([]);
    expect(followedOf([null, 3, { id: capId(1) }])).toEqual([{ id: capId(1) }]);
  });
});
