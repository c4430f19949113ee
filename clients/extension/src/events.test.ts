import { describe, expect, it } from 'vitest';
import { MAX_BLOCK_CHARS, SseParser, StreamTooLarge, readEvent, type SseMessage } from './events';

const CAP = 'cap_01jd8x6q1bf5r3v2m9w7k4t0za';
const NODE = 'node_01jd8x6q1bf5r3v2m9w7k4t0zb';

const changed = (over: Record<string, unknown> = {}, data: Record<string, unknown> = {}) => ({
  id: 'evt_1',
  type: 'capture.changed',
  occurred_at: '2026-11-28T10:00:00.000Z',
  version: 3,
  data: { capture_id: CAP, status: 'processed', previous_status: 'processing', node_ids: [NODE], error: null, ...data },
  ...over,
});
const sse = (event: string, data: unknown): SseMessage => ({ id: 'evt_1', event, data: JSON.stringify(data) });

describe('SseParser', () => {
  it('reads events, comments, ids, retry and multi-line data as the server frames them', () => {
    const retries: number[] = [];
    const parser = new SseParser((ms) => retries.push(ms));
    const out = parser.push(
      'retry: 3000\n: connected\n\nid: evt_1\nevent: capture.changed\ndata: {"a":\ndata: 1}\n\n: keep-alive\n\n',
    );
    expect(out).toEqual([{ id: 'evt_1', event: 'capture.changed', data: '{"a":\n1}' }]);
    expect(retries).toEqual([3000]);
  });

  it('joins events split anywhere across chunks, CRLF split between two chunks included', () => {
    const parser = new SseParser();
    const text = 'id: evt_2\r\nevent: capture.deleted\r\ndata: {"x":2}\r\n\r\nevent: a\rdata: b\r\r';
    const got: SseMessage[] = [];
    for (let i = 0; i < text.length; i += 3) got.push(...parser.push(text.slice(i, i + 3)));
    expect(got).toEqual([
      { id: 'evt_2', event: 'capture.deleted', data: '{"x":2}' },
      { id: null, event: 'a', data: 'b' },
    ]);
    // Every split point, one at a time.
    for (let cut = 1; cut < text.length; cut++) {
      const p = new SseParser();
      expect([...p.push(text.slice(0, cut)), ...p.push(text.slice(cut))]).toEqual(got);
    }
  });

  it('a block without data is no event; a bad retry is ignored', () => {
    const retries: number[] = [];
    const parser = new SseParser((ms) => retries.push(ms));
    expect(parser.push('event: capture.changed\nid: evt_3\n\nretry: soon\nretry: -1\n\n')).toEqual([]);
    expect(retries).toEqual([]);
  });

  it('a flood without a blank line is refused, not buffered without bound', () => {
    const parser = new SseParser();
    const line = `data: ${'x'.repeat(64 * 1024)}\n`;
    expect(() => {
      for (let i = 0; i * line.length <= MAX_BLOCK_CHARS + line.length; i++) parser.push(line);
    }).toThrow(StreamTooLarge);
    expect(() => new SseParser().push('y'.repeat(MAX_BLOCK_CHARS + 1))).toThrow(StreamTooLarge);
  });
});

describe('readEvent', () => {
  it('reads capture.changed and capture.deleted as the contract shapes them', () => {
    expect(readEvent(sse('capture.changed', changed()))).toEqual({ kind: 'capture', event: changed() });
    const deleted = { id: 'evt_2', type: 'capture.deleted', occurred_at: 'x', version: 4, data: { capture_id: CAP } };
    expect(readEvent(sse('capture.deleted', deleted))).toEqual({ kind: 'capture', event: deleted });
    expect(readEvent(sse('credential.ended', { reason: 'revoked', detail: 'gone' }))).toEqual({
      kind: 'ended',
      ended: { reason: 'revoked', detail: 'gone' },
    });
  });

  it('ignores other events and anything malformed', () => {
    const ignored: SseMessage[] = [
      sse('node.created', { id: 'evt', type: 'node.created', version: 1, data: {} }),
      { id: null, event: 'capture.changed', data: '{not json' },
      { id: null, event: 'capture.changed', data: 'null' },
      sse('capture.changed', changed({ version: 0 })),
      sse('capture.changed', changed({ version: '3' })),
      sse('capture.changed', changed({}, { status: 'done' })),
      sse('capture.changed', changed({}, { capture_id: 'cap_../../admin' })),
      sse('capture.changed', changed({}, { capture_id: undefined })),
      sse('capture.changed', changed({}, { node_ids: ['javascript:alert(1)'] })),
      sse('capture.changed', changed({}, { node_ids: [`${NODE}/../../x`] })),
      // The `event:` line and the data disagree.
      sse('capture.deleted', changed()),
      sse('message', changed()),
      sse('credential.ended', { detail: 'no reason' }),
    ];
    for (const message of ignored) expect(readEvent(message), message.data).toBeNull();
  });
});
