import { describe, expect, it } from 'vitest';
import { diversify } from './context';

const item = (id: string, score: number, text: string) => ({ id, score, words: new Set(text.split(' ')) });

describe('maximal marginal relevance', () => {
  it('moves a near-duplicate of a picked item behind a different one of a slightly lower score', () => {
    const items = [
      item('a', 0.8, 'coffee shot notes'),
      item('a-copy', 0.79, 'coffee shot notes'),
      item('b', 0.6, 'tax filing'),
    ];
    expect(diversify(items, 3).map((i) => i.id)).toEqual(['a', 'b', 'a-copy']);
  });

  it('keeps score order among unrelated items and stops at the limit', () => {
    const items = [item('x', 0.9, 'one'), item('y', 0.5, 'two'), item('z', 0.7, 'three')];
    expect(diversify(items, 2).map((i) => i.id)).toEqual(['x', 'z']);
  });
});
