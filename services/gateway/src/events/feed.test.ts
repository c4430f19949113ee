import { describe, expect, it } from 'vitest';
import { createMemoryBus } from '@kg/bus';
import { TOPICS, type CaptureChangeEvent } from '@kg/contracts';
import { createLogger } from '@kg/logger';
import { formatEvent } from '../routes/events';
import { createEventFeed, feedFromBus, type LiveEvent } from './feed';

const A = 'tnt_01jd8x6q1bf5r3v2m9w7k4t0za';
const B = 'tnt_01jd8x6q1bf5r3v2m9w7k4t0zb';
const changed = (tenant: string, version: number): CaptureChangeEvent => ({
  id: `evt_${version}`,
  type: 'capture.changed',
  tenant_id: tenant,
  occurred_at: '2026-11-23T12:00:00.000Z',
  version,
  data: {
    capture_id: 'cap_01jd8x6q1bf5r3v2m9w7k4t0za',
    status: 'pending',
    previous_status: null,
    node_ids: [],
    error: null,
  },
});

describe('event feed', () => {
  it("delivers a tenant's events to its listeners only, until they unsubscribe", () => {
    const feed = createEventFeed();
    const a: LiveEvent[] = [];
    const b: LiveEvent[] = [];
    const stopA = feed.subscribe(A, (e) => a.push(e));
    feed.subscribe(B, (e) => b.push(e));
    feed.publish(changed(A, 1));
    expect(a.map((e) => e.version)).toEqual([1]);
    expect(b).toEqual([]);
    expect(feed.size()).toBe(2);
    stopA();
    feed.publish(changed(A, 2));
    expect(a).toHaveLength(1);
    expect(feed.size()).toBe(1);
  });

  it('is fed from the bus (capture changes and node events)', async () => {
    const bus = createMemoryBus(createLogger('test', 'silent'));
    const feed = createEventFeed();
    await feedFromBus(bus, feed, 'gateway-events', createLogger('test', 'silent'));
    await bus.start();
    const got = new Promise<LiveEvent>((resolve) => feed.subscribe(A, resolve));
    await bus.publish(TOPICS.captureChanges, [{ key: A, value: changed(A, 7) }]);
    expect((await got).version).toBe(7);
    await bus.stop();
  });

  it('formats a server-sent event without the tenant id', () => {
    const text = formatEvent(changed(A, 3));
    expect(text).toMatch(/^id: evt_3\nevent: capture\.changed\ndata: \{.*\}\n\n$/);
    expect(text).not.toContain(A);
    expect(JSON.parse(text.split('data: ')[1]!)).toMatchObject({ version: 3, data: { status: 'pending' } });
  });
});
