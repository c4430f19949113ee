import { describe, expect, it } from 'vitest';
import { CHUNK_CHARS, MAX_CHUNKS, nodePassages, poolVectors } from './text';

describe('node passages', () => {
  it('joins title, summary and body with whitespace collapsed', () => {
    expect(nodePassages({ title: ' Tea ', summary: 'Green\n\ntea', body_markdown: '- steep\t3 min' })).toEqual([
      'Tea. Green tea. - steep 3 min',
    ]);
    expect(nodePassages({ title: '', summary: '', body_markdown: '  ' })).toEqual([]);
  });

  it('embeds a long node as its head (title and summary) then body chunks of at most 1,000 characters', () => {
    const body = 'word '.repeat(10_000);
    const chunks = nodePassages({ title: 'T', summary: 'S', body_markdown: body });
    expect(chunks).toHaveLength(MAX_CHUNKS);
    expect(chunks[0]).toBe('T. S');
    for (const c of chunks.slice(1)) {
      expect(c.length).toBeLessThanOrEqual(CHUNK_CHARS);
      expect(c.endsWith('word')).toBe(true);
    }
  });
});

describe('pooling', () => {
  it('weighs the first passage as much as all the others together, unit length', () => {
    const v = (...xs: number[]) => Float32Array.from(xs);
    const pooled = poolVectors([v(1, 0, 0), v(0, 1, 0), v(0, 1, 0), v(0, 0, 1)]);
    const norm = Math.hypot(...pooled);
    expect(norm).toBeCloseTo(1, 6);
    const [a, b, c] = pooled.map((x) => x * Math.hypot(0.5, 1 / 3, 1 / 6));
    expect(a).toBeCloseTo(0.5, 6);
    expect(b).toBeCloseTo(1 / 3, 6);
    expect(c).toBeCloseTo(1 / 6, 6);
    expect(poolVectors([v(3, 4)])).toEqual([0.6, 0.8].map((x) => expect.closeTo(x, 6)));
  });
});
