import { describe, expect, it } from 'vitest';
import { parseEventStream } from './events.ts';

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
