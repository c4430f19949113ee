import { describe, expect, it } from 'vitest';
import { frontMatterLinks, wikiLinks } from './wiki-links.ts';

describe('wikiLinks', () => {
  it('reads names from every Obsidian link form, once each, in order', () => {
    expect(
      wikiLinks(
        'See [[Alpha]], [[beta|shown]], [[Gamma#Heading]], [[Delta^block]], ![[Embed note]], [[alpha]] and [[Folder/Epsilon.md]].',
      ),
    ).toEqual(['Alpha', 'beta', 'Gamma', 'Delta', 'Embed note', 'Folder/Epsilon']);
  });
  it('skips attachments, same-note headings and code', () => {
    expect(
      wikiLinks('![[photo.png]] [[paper.pdf]] [[#Local heading]] `[[inline]]`\n```\n[[fenced]]\n```\n[[Real]]'),
    ).toEqual(['Real']);
  });
  it('front matter lists, with or without brackets', () => {
    expect(frontMatterLinks(['[[A]]', 'B', 'C.md'])).toEqual(['A', 'B', 'C']);
    expect(frontMatterLinks('[[Only]]')).toEqual(['Only']);
    expect(frontMatterLinks(undefined)).toEqual([]);
  });
});
