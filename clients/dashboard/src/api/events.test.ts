import { describe, expect, it } from 'vitest';
import { parseBlock } from './events';

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
