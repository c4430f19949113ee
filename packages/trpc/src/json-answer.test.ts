import { describe, expect, it } from 'vitest';
import { TRPCClientError } from '@trpc/client';
import { unwrapAnswer } from './json-answer';

describe('unwrapAnswer', () => {
  it('slices the answer out of tRPC’s envelope, byte for byte', () => {
    const answer = { nodes: [{ id: 'n', title: 'é "quoted" }}' }], next: null };
    const text = unwrapAnswer(JSON.stringify({ result: { data: answer } }));
    expect(text).toBe(JSON.stringify(answer));
  });

  it('parses an envelope of another form (spaces, other keys) and writes the answer again', () => {
    expect(unwrapAnswer('{ "result": { "type": "data", "data": [1, 2] } }')).toBe('[1,2]');
  });

  it('refuses a body without a result', () => {
    expect(() => unwrapAnswer('{"error":{}}')).toThrow(TRPCClientError);
    expect(() => unwrapAnswer('not json')).toThrow();
  });
});
