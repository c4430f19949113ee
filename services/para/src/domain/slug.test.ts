import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { firstFreeSlug, slugBase } from './slug';

describe('slugs', () => {
  it('derives a readable base from the label', () => {
    expect(slugBase('My Label')).toBe('my-label');
    expect(slugBase('  Déjà vu: notes & ideas!  ')).toBe('deja-vu-notes-and-ideas');
    expect(slugBase('!!!')).toBe('item');
    expect(slugBase('x'.repeat(300))).toHaveLength(80);
  });

  it('numbers duplicates from 2 and reuses gaps', () => {
    expect(firstFreeSlug('a', [])).toBe('a');
    expect(firstFreeSlug('a', ['a'])).toBe('a-2');
    expect(firstFreeSlug('a', ['a', 'a-2', 'a-3'])).toBe('a-4');
    expect(firstFreeSlug('a', ['a', 'a-3'])).toBe('a-2');
  });

  it('always answers a slug that is not taken (property)', () => {
    fc.assert(
      fc.property(fc.string(), fc.array(fc.string()), (label, taken) => {
        const base = slugBase(label);
        const slug = firstFreeSlug(base, taken);
        expect(taken).not.toContain(slug);
        expect(slug).toMatch(/^[a-z0-9-]+$/);
      }),
    );
  });
});
