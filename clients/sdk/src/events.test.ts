import { describe, expect, it } from 'vitest';
import type { KgClient } from './client.ts';
import { AuthRequiredError } from './errors.ts';
import { openEvents, parseEventStream } from './events.ts';

const stream = (chunks: string[]) =>
  new ReadableStream<Uint8Array>({
    start(c) {
      for (const s of chunks) c.enqueue(new TextEncoder().encode(s));
      c.close();
    },
  });

describe('parseEventStream', () => {
  it('reads events split across chunks, skipping comments', async () => {
    const body = stream([
      ': keep-alive\n\n',
      'id: e1\nevent: capture.changed\nda',
      'ta: {"id":"e1","data":{"status":"processing"}}\n\n',
      'id: e2\r\nevent: node.created\r\ndata: {"id":"e2"}\r\n\r\n',
    ]);
    const got = [];
    for await (const e of parseEventStream(body)) got.push(e);
    expect(got).toEqual([
      { id: 'e1', event: 'capture.changed', data: { id: 'e1', data: { status: 'processing' } } },
      { id: 'e2', event: 'node.created', data: { id: 'e2' } },
    ]);
  });
});

describe('openEvents and the end of a credential', () => {
  const ended = (reason: string, detail: string) =>
    `event: credential.ended\ndata: ${JSON.stringify({ reason, detail })}\n\n`;
  /** A client whose session answers GET /events with each of `bodies` in turn. */
  const clientOf = (bodies: string[][]) => {
    const calls: string[] = [];
    const kg = {
      baseUrl: 'http://kg.test/api/v1',
      session: {
        fetch: async (make: () => Request) => {
          calls.push(make().url);
          const body = bodies.shift();
          return body ? new Response(stream(body), { status: 200 }) : new Response('{}', { status: 401 });
        },
      },
    } as unknown as KgClient;
    return { kg, calls };
  };

  it('after `expired` opens the stream again (a fresh token) and goes on reading', async () => {
    const { kg, calls } = clientOf([
      ['id: e1\nevent: node.created\ndata: {"id":"e1"}\n\n', ended('expired', 'The access token expired')],
      ['id: e2\nevent: node.updated\ndata: {"id":"e2"}\n\n'],
    ]);
    const got = [];
    for await (const e of await openEvents(kg)) got.push(e.event);
    expect(got).toEqual(['node.created', 'credential.ended', 'node.updated']);
    expect(calls).toEqual(['http://kg.test/api/v1/events', 'http://kg.test/api/v1/events']);
  });

  it('after `revoked` or `signed_out` stops with AuthRequiredError naming why, without reconnecting', async () => {
    for (const reason of ['revoked', 'signed_out']) {
      const { kg, calls } = clientOf([[ended(reason, `The credential of this stream was ${reason}`)], ['never read']]);
      const got: string[] = [];
      const reading = (async () => {
        for await (const e of await openEvents(kg)) got.push(e.event);
      })();
      await expect(reading).rejects.toThrow(AuthRequiredError);
      await expect(reading).rejects.toThrow(`The credential of this stream was ${reason}`);
      expect(got).toEqual(['credential.ended']);
      expect(calls).toHaveLength(1);
    }
  });
});
