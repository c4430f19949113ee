import { afterEach, describe, expect, it, vi } from 'vitest';
import { parseBlock, subscribeEvents, type LiveEvent } from './events';

describe('parseBlock (one server-sent event of GET /api/v1/events)', () => {
  it('reads the type, the id and the inner data of the event', () => {
    const block =
      'id: evt_1\nevent: capture.changed\ndata: {"id":"evt_1","type":"capture.changed","data":{"capture_id":"cap_1","status":"processed"}}';
    expect(parseBlock(block, () => {})).toEqual({
      id: 'evt_1',
      type: 'capture.changed',
      data: { capture_id: 'cap_1', status: 'processed' },
    });
  });

  it('ignores comments (the keep-alive) and reports the retry delay', () => {
    const delays: number[] = [];
    expect(parseBlock(': keep-alive', (ms) => delays.push(ms))).toBeNull();
    expect(parseBlock('retry: 3000\n: connected', (ms) => delays.push(ms))).toBeNull();
    expect(delays).toEqual([3000]);
  });

  it('joins multi-line data and skips data that is not JSON', () => {
    expect(parseBlock('event: x\ndata: {"data":\ndata: {"a":1}}', () => {})).toEqual({
      id: '',
      type: 'x',
      data: { a: 1 },
    });
    expect(parseBlock('event: x\ndata: not json', () => {})).toBeNull();
  });
});

describe('subscribeEvents and the end of a credential', () => {
  afterEach(() => {
    vi.unstubAllGlobals();
  });

  const ended = (reason: string) =>
    `event: credential.ended\ndata: ${JSON.stringify({ reason, detail: `The credential was ${reason}` })}\n\n`;
  /** Answers GET /api/v1/events with each body in turn (no session: no cookie, no token). */
  const serve = (bodies: string[]) => {
    const urls: string[] = [];
    vi.stubGlobal('document', { cookie: '' });
    // The page's origin, which relative URLs resolve against in a browser.
    const NodeRequest = Request;
    vi.stubGlobal(
      'Request',
      class extends NodeRequest {
        constructor(input: string, init?: RequestInit) {
          super(new URL(input, 'http://kg.test'), init);
        }
      },
    );
    vi.stubGlobal('fetch', async (req: Request) => {
      urls.push(new URL(req.url, 'http://kg.test').pathname);
      const body = bodies.shift();
      return body === undefined ? new Promise<Response>(() => undefined) : new Response(body, { status: 200 });
    });
    return urls;
  };

  it('parses credential.ended with its reason and detail', () => {
    expect(parseBlock(ended('expired').trim(), () => {})).toEqual({
      id: '',
      type: 'credential.ended',
      data: { reason: 'expired', detail: 'The credential was expired' },
    });
  });

  it('after `expired` reconnects at once (a fresh token) and reads on; the caller re-reads on connect', async () => {
    const urls = serve([
      `id: e1\nevent: capture.changed\ndata: {"data":{"capture_id":"cap_1"}}\n\n${ended('expired')}`,
    ]);
    const events: LiveEvent[] = [];
    let connects = 0;
    const ends: string[] = [];
    const stop = subscribeEvents(
      (e) => events.push(e),
      () => connects++,
      (detail) => ends.push(detail),
    );
    await vi.waitFor(() => expect(urls).toHaveLength(2));
    stop();
    expect(events.map((e) => e.type)).toEqual(['capture.changed']);
    expect(connects).toBe(1);
    expect(ends).toEqual([]);
  });

  it('after `revoked` or `signed_out` stops and says why, without reconnecting', async () => {
    for (const reason of ['revoked', 'signed_out']) {
      const urls = serve([ended(reason)]);
      const ends: string[] = [];
      const stop = subscribeEvents(
        () => undefined,
        () => undefined,
        (detail) => ends.push(detail),
      );
      await vi.waitFor(() => expect(ends).toEqual([`The credential was ${reason}`]));
      await new Promise((r) => setTimeout(r, 50));
      expect(urls.filter((u) => u === '/api/v1/events')).toHaveLength(1);
      stop();
    }
  });
});
