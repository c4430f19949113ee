import { describe, expect, it } from 'vitest';
import { mergeLinks } from './links.ts';
import { nextAssignments } from './para.ts';

const l = (target_id: string, type = 'related', weight = 1) => ({ target_id, type, weight });

describe('mergeLinks', () => {
  it('adds new targets and keeps every other link', () => {
    expect(mergeLinks([l('a'), l('b', 'supports', 0.5)], [l('c')], [])).toEqual([
      l('a'),
      l('b', 'supports', 0.5),
      l('c'),
    ]);
  });
  it('updates the type and weight of a target already linked, in place', () => {
    expect(mergeLinks([l('a'), l('b')], [l('a', 'part_of', 0.3)], [])).toEqual([l('a', 'part_of', 0.3), l('b')]);
  });
  it('removes unlinked targets, also when added in the same call', () => {
    expect(mergeLinks([l('a'), l('b')], [l('c')], ['a', 'c', 'zzz'])).toEqual([l('b')]);
  });
});

describe('nextAssignments', () => {
  it('adds after the current items without duplicates', () => {
    expect(nextAssignments(['p1', 'p2'], ['p2', 'p3'], 'add')).toEqual(['p1', 'p2', 'p3']);
  });
  it('removes only the given items', () => {
    expect(nextAssignments(['p1', 'p2', 'p3'], ['p2'], 'remove')).toEqual(['p1', 'p3']);
  });
  it('replaces with exactly the given items, once each', () => {
    expect(nextAssignments(['p1'], ['p3', 'p3', 'p2'], 'replace')).toEqual(['p3', 'p2']);
    expect(nextAssignments(['p1'], [], 'replace')).toEqual([]);
  });
});
