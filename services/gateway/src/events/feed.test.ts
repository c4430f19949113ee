import { describe, expect, it } from 'vitest';
import { createMemoryBus } from '@kg/bus';
import { TOPICS, type ApiKeyEvent, type CaptureChangeEvent, type SessionEvent } from '@kg/contracts';
import { createLogger } from '@kg/logger';
import { formatEnd, formatEvent } from '../routes/events';
import { createEventFeed, feedFromBus, type EndReason, type LiveEvent } from './feed';

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

  it('ends the streams of an ended credential only, in its tenant only, once; later events do not reach them', () => {
    const feed = createEventFeed();
    const heard: Record<string, Array<number | EndReason>> = { key: [], session: [], other: [], b: [] };
    const listen = (name: string, tenant: string, apiKeyId: string | null, sessionId: string | null) =>
      feed.subscribe(tenant, (e) => heard[name]!.push(e.version), {
        credential: { apiKeyId, sessionId },
        onEnd: (reason) => heard[name]!.push(reason),
      });
    listen('key', A, 'key_1', null);
    listen('session', A, null, 'rtk_1');
    listen('other', A, null, 'rtk_2');
    listen('b', B, 'key_1', null); // the same id in another tenant: never a match
    expect(feed.endCredential(A, { kind: 'api_key', id: 'key_1' }, 'revoked')).toBe(1);
    expect(feed.endCredential(A, { kind: 'session', id: 'rtk_1' }, 'signed_out')).toBe(1);
    expect(feed.endCredential(A, { kind: 'session', id: 'rtk_1' }, 'signed_out')).toBe(0);
    feed.publish(changed(A, 5));
    expect(heard).toEqual({ key: ['revoked'], session: ['signed_out'], other: [5], b: [] });
    expect(feed.size()).toBe(2);
  });

  it('hears api_key.revoked and session.revoked from the bus (a reuse is `revoked`, a sign-out `signed_out`)', async () => {
    const bus = createMemoryBus(createLogger('test', 'silent'));
    const feed = createEventFeed();
    await feedFromBus(bus, feed, 'gateway-events', createLogger('test', 'silent'));
    await bus.start();
    const ended = (apiKeyId: string | null, sessionId: string | null) =>
      new Promise<EndReason>((resolve) =>
        feed.subscribe(A, () => undefined, { credential: { apiKeyId, sessionId }, onEnd: resolve }),
      );
    const key = ended('key_01jd8x6q1bf5r3v2m9w7k4t0za', null);
    const reused = ended(null, 'rtk_01jd8x6q1bf5r3v2m9w7k4t0za');
    const out = ended(null, 'rtk_01jd8x6q1bf5r3v2m9w7k4t0zb');
    const revoked: ApiKeyEvent = {
      id: 'evt_k',
      type: 'api_key.revoked',
      tenant_id: A,
      occurred_at: '2026-11-23T12:00:00.000Z',
      data: { api_key_id: 'key_01jd8x6q1bf5r3v2m9w7k4t0za' },
    };
    const session = (id: string, reason: SessionEvent['data']['reason']): SessionEvent => ({
      id: `evt_${id}`,
      type: 'session.revoked',
      tenant_id: A,
      occurred_at: '2026-11-23T12:00:00.000Z',
      data: { session_id: id, reason },
    });
    await bus.publish(TOPICS.apiKeys, [{ key: A, value: revoked }]);
    await bus.publish(TOPICS.sessions, [
      { key: A, value: session('rtk_01jd8x6q1bf5r3v2m9w7k4t0za', 'reuse_detected') },
      { key: A, value: session('rtk_01jd8x6q1bf5r3v2m9w7k4t0zb', 'signed_out') },
    ]);
    expect([await key, await reused, await out]).toEqual(['revoked', 'revoked', 'signed_out']);
    expect(feed.size()).toBe(0);
    await bus.stop();
  });

  it('formats the last event of a stream whose credential ended', () => {
    const text = formatEnd('expired');
    expect(text).toMatch(/^event: credential\.ended\ndata: \{.*\}\n\n$/);
    expect(JSON.parse(text.split('data: ')[1]!)).toEqual({
      reason: 'expired',
      detail: expect.stringContaining('expired'),
    });
  });
});
