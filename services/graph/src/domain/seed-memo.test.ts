import { describe, expect, it } from 'vitest';
import { SeedMemo } from './seed-memo';

describe('seed memo', () => {
  it('answers only the tenant, version and query an entry was made for', () => {
    const memo = new SeedMemo<string>(100);
    memo.set('t1', 7, 'q', 'walk', 10);
    expect(memo.get('t1', 7, 'q')).toBe('walk');
    expect(memo.get('t1', 8, 'q')).toBeUndefined();
    expect(memo.get('t2', 7, 'q')).toBeUndefined();
    expect(memo.get('t1', 7, 'other')).toBeUndefined();
  });

  it('holds at most its weight, dropping the least recently used first', () => {
    const memo = new SeedMemo<string>(30);
    memo.set('t', 1, 'a', 'A', 10);
    memo.set('t', 1, 'b', 'B', 10);
    memo.set('t', 1, 'c', 'C', 10);
    expect(memo.get('t', 1, 'a')).toBe('A'); // a is now the most recent
    memo.set('t', 1, 'd', 'D', 10);
    expect(memo.get('t', 1, 'b')).toBeUndefined();
    expect(['A', 'C', 'D']).toEqual(['a', 'c', 'd'].map((q) => memo.get('t', 1, q)));
    expect(memo.weight).toBe(30);
    memo.set('t', 1, 'c', 'C2', 5); // replacing an entry releases its old weight
    expect(memo.weight).toBe(25);
  });

  it('never keeps an entry heavier than the whole budget', () => {
    const memo = new SeedMemo<string>(30);
    memo.set('t', 1, 'a', 'A', 10);
    memo.set('t', 1, 'huge', 'H', 31);
    expect(memo.get('t', 1, 'huge')).toBeUndefined();
    expect(memo.get('t', 1, 'a')).toBe('A');
  });
});
