import { describe, expect, it } from 'vitest';
import { fuse, minMax } from './fusion';

describe('hybrid fusion', () => {
  it('min-max normalises each side; a single candidate scores 1', () => {
    expect([
      ...minMax([
        { id: 'a', score: 3 },
        { id: 'b', score: 1 },
        { id: 'c', score: 2 },
      ]),
    ]).toEqual([
      ['a', 1],
      ['b', 0],
      ['c', 0.5],
    ]);
    expect(minMax([{ id: 'a', score: 0.2 }]).get('a')).toBe(1);
  });

  it('weights the semantic side by 0.6 by default; a node found by one side only counts 0 on the other', () => {
    const fused = fuse(
      [
        { id: 'kw-only', score: 10 },
        { id: 'both', score: 5 },
        { id: 'kw-low', score: 0 },
      ],
      [
        { id: 'both', score: 0.8 },
        { id: 'sem-only', score: 0.4 },
      ],
    );
    expect(fused.map((h) => h.id)).toEqual(['both', 'kw-only', 'kw-low', 'sem-only']);
    expect(fused[0]!.score).toBeCloseTo(0.6 + 0.4 * 0.5, 10);
    expect(fused[1]!.score).toBeCloseTo(0.4, 10);
    expect(fused[3]!.score).toBeCloseTo(0, 10);
  });
});
