import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { FIRST_RETRY_MS, MAX_RETRY_MS, backoff, openEventStream, type StreamHandlers } from './event-stream';
import type { CaptureEvent } from './events';

const CAP = 'cap_01jd8x6q1bf5r3v2m9w7k4t0za';
const KEY = 'key_01jd8x6q1bf5r3v2m9w7k4t0zc.secretsecretsecretsecret';

const frame = (version: number, status = 'processing', capture = CAP) =>
  `id: evt_${version}\nevent: capture.changed\ndata: ${JSON.stringify({
    id: `evt_${version}`,
    type: 'capture.changed',
    occurred_at: '2026-11-28T10:00:00.000Z',
    version,
    data: { capture_id: capture, status, previous_status: null, node_ids: [], error: null },
  })}\n\n`;

/** A loopback server: `handle` answers each request, told how many came before. */
let server: Server | null = null;
async function serve(handle: (req: IncomingMessage, res: ServerResponse, n: number) => void) {
  let n = 0;
  const requests: IncomingMessage[] = [];
  server = createServer((req, res) => {
    requests.push(req);
    handle(req, res, n++);
  });
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', () => r()));
  return { origin: `http://127.0.0.1:${(server.address() as { port: number }).port}`, requests };
}
afterEach(async () => {
  if (!server) return;
  server.closeAllConnections();
  await new Promise((r) => server!.close(r));
  server = null;
});

const sse = (res: ServerResponse) => res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8' });

/** Records what the stream tells; `waits` holds every backoff delay asked for (the tests do not wait them). */
function recorder() {
  const seen = { opens: 0, events: [] as CaptureEvent[], ends: [] as string[], waits: [] as number[] };
  const handlers: StreamHandlers = {
    onOpen: () => void seen.opens++,
    onEvent: (e) => void seen.events.push(e),
    onEnd: (reason) => void seen.ends.push(reason),
  };
  const options = {
    sleep: async (ms: number) => void seen.waits.push(ms),
    random: () => 0.5,
  };
  return { seen, handlers, options };
}

const until = async (check: () => boolean) => {
  for (let i = 0; i < 500 && !check(); i++) await new Promise((r) => setTimeout(r, 10));
  expect(check()).toBe(true);
};

describe('the live event stream', () => {
  it('sends the API key in a header, never in the address, and reads capture events only', async () => {
    const { origin, requests } = await serve((_req, res) => {
      sse(res);
      res.write('retry: 3000\n: connected\n\n');
      res.write(`event: node.created\ndata: {"id":"evt_0","type":"node.created","version":1,"data":{}}\n\n`);
      res.write('event: capture.changed\ndata: {broken\n\n');
      res.write(frame(2, 'processed'));
    });
    const { seen, handlers, options } = recorder();
    const stream = openEventStream({ server: origin, apiKey: KEY }, handlers, options);
    await until(() => seen.events.length === 1);
    stream.close();
    await stream.done;
    expect(requests[0]!.url).toBe('/api/v1/events');
    expect(requests[0]!.headers['authorization']).toBe(`ApiKey ${KEY}`);
    expect(requests[0]!.headers['accept']).toBe('text/event-stream');
    expect(seen.events.map((e) => [e.version, e.data])).toEqual([
      [2, expect.objectContaining({ status: 'processed' })],
    ]);
    expect(seen.opens).toBe(1);
  });

  it('a dropped stream reconnects after a backoff and re-announces itself; each event arrives once', async () => {
    const { origin, requests } = await serve((_req, res, n) => {
      sse(res);
      res.write(frame(n + 1));
      // The first connection ends (a gateway restart), the second breaks (the network); the third stays.
      if (n === 0) res.end();
      else if (n === 1) setTimeout(() => res.destroy(), 50);
    });
    const { seen, handlers, options } = recorder();
    const stream = openEventStream({ server: origin, apiKey: KEY }, handlers, options);
    await until(() => seen.events.length === 3);
    stream.close();
    await stream.done;
    expect(requests).toHaveLength(3);
    expect(seen.opens).toBe(3);
    expect(seen.events.map((e) => e.version)).toEqual([1, 2, 3]);
    // Reset by every successful connection: the server's 3 s each time.
    expect(seen.waits).toEqual([FIRST_RETRY_MS, FIRST_RETRY_MS]);
  });

  it('backs off longer while the server cannot be reached or fails, and honours Retry-After', async () => {
    const { origin } = await serve((_req, res, n) => {
      if (n === 0) res.writeHead(503).end();
      else if (n === 1) res.writeHead(429, { 'retry-after': '15' }).end();
      else if (n === 2) res.writeHead(200, { 'content-type': 'text/html' }).end('<html>a portal</html>');
      else {
        sse(res);
        res.write(frame(1));
      }
    });
    const { seen, handlers, options } = recorder();
    const stream = openEventStream({ server: origin, apiKey: KEY }, handlers, options);
    await until(() => seen.events.length === 1);
    stream.close();
    await stream.done;
    expect(seen.waits).toEqual([3000, 15_000, 12_000]);
    expect(seen.opens).toBe(1);
  });

  it('stops for good when the key is refused or revoked', async () => {
    const refused = await serve((_req, res) => res.writeHead(401).end());
    const a = recorder();
    await openEventStream({ server: refused.origin, apiKey: KEY }, a.handlers, a.options).done;
    expect(a.seen.ends).toEqual(['the API key was refused: set a new one in the options']);
    expect(refused.requests).toHaveLength(1);
    await new Promise((r) => server!.close(r));
    server = null;

    const revoked = await serve((_req, res) => {
      sse(res);
      res.end('event: credential.ended\ndata: {"reason":"revoked","detail":"The key was revoked"}\n\n');
    });
    const b = recorder();
    await openEventStream({ server: revoked.origin, apiKey: KEY }, b.handlers, b.options).done;
    expect(b.seen.ends).toEqual(['The key was revoked']);
    expect(revoked.requests).toHaveLength(1);
  });

  it('a stream that floods without ever ending an event is dropped and reconnected', async () => {
    const { origin, requests } = await serve((_req, res, n) => {
      sse(res);
      if (n === 0) res.write(`data: ${'x'.repeat(2 * 1024 * 1024)}`);
      else res.write(frame(1));
    });
    const { seen, handlers, options } = recorder();
    const stream = openEventStream({ server: origin, apiKey: KEY }, handlers, options);
    await until(() => seen.events.length === 1);
    stream.close();
    await stream.done;
    expect(requests).toHaveLength(2);
  });

  it('backoff: doubles per failure up to a minute, with ±20% jitter', () => {
    expect(backoff(0, 3000, 0.5)).toBe(3000);
    expect(backoff(1, 3000, 0.5)).toBe(6000);
    expect(backoff(2, 3000, 0)).toBe(9600);
    expect(backoff(40, 3000, 0.5)).toBe(MAX_RETRY_MS);
    expect(backoff(40, 3000, 1)).toBe(MAX_RETRY_MS * 1.2);
    expect(backoff(0, 3000, 0.5, 15_000)).toBe(15_000);
  });
});
