import { describe, expect, it } from 'vitest';
import { nodeToMarkdown } from './markdown.ts';

const node = {
  id: 'node_01jd8x6q1bf5r3v2m9w7k4t0za',
  title: 'Espresso',
  summary: 'Two lines\nof summary',
  body_markdown: 'Body **bold**\n',
  tags: ['coffee', 'a: b'],
  status: 'validated',
  para_item_ids: ['para_01jd8x6q1bf5r3v2m9w7k4t0za'],
  created_at: '2026-01-01T00:00:00.000Z',
  updated_at: '2026-01-02T00:00:00.000Z',
};

describe('nodeToMarkdown', () => {
  it('renders front matter, title, quoted summary and body', () => {
    expect(nodeToMarkdown(node)).toBe(
      [
        '---',
        'id: node_01jd8x6q1bf5r3v2m9w7k4t0za',
        'status: validated',
        'tags: [coffee, "a: b"]',
        'para_item_ids: [para_01jd8x6q1bf5r3v2m9w7k4t0za]',
        'created_at: 2026-01-01T00:00:00.000Z',
        'updated_at: 2026-01-02T00:00:00.000Z',
        '---',
        '',
        '# Espresso',
        '',
        '> Two lines\n> of summary',
        '',
        'Body **bold**',
        '',
      ].join('\n'),
    );
  });
  it('leaves out an empty summary and body', () => {
    expect(nodeToMarkdown({ ...node, summary: '', body_markdown: ' ' })).toMatch(/---\n\n# Espresso\n$/);
  });
});
