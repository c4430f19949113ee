import { describe, expect, it } from 'vitest';
import { parseKarakeepJson } from './karakeep-json.ts';
import type { Entry } from './types.ts';

const all = async (chunks: string[]) => {
  const out: Entry[] = [];
  for await (const e of parseKarakeepJson(chunks)) out.push(e);
  return out;
};

const EXPORT = `{
  "bookmarks": [
    {"createdAt": 1700000000, "title": "A", "tags": ["x", "y"], "content": {"type": "link", "url": "https://a.example/"}, "note": "kept", "archived": false},
    {"title": null, "tags": null, "content": {"type": "text", "text": "a text note"}, "note": null},
    {"content": {"type": "link", "url": "https://b.example/"}},
    {},
    42
  ]
}`;

describe('parseKarakeepJson', () => {
  it('reads the export; missing fields are tolerated, entries without a URL are named by position', async () => {
    expect(await all([EXPORT])).toEqual([
      {
        kind: 'bookmark',
        index: 0,
        url: 'https://a.example/',
        title: 'A',
        folders: [],
        tags: ['x', 'y'],
        addedAt: new Date(1_700_000_000_000),
        note: 'kept',
      },
      { kind: 'problem', index: 1, message: 'a text bookmark, not a link' },
      { kind: 'bookmark', index: 2, url: 'https://b.example/', title: '', folders: [], tags: [] },
      { kind: 'problem', index: 3, message: 'a bookmark without a URL' },
      { kind: 'problem', index: 4, message: 'not a bookmark object' },
    ]);
  });

  it('a file cut short imports the bookmarks before and reports the line where it breaks', async () => {
    const cut = EXPORT.slice(0, EXPORT.indexOf('"https://b.example/') + 12);
    const entries = await all([cut.slice(0, 100), cut.slice(100)]);
    expect(entries.filter((e) => e.kind === 'bookmark')).toHaveLength(1);
    expect(entries.at(-1)).toMatchObject({ kind: 'problem', line: 5 });
    expect((entries.at(-1) as { message: string }).message).toMatch(/not valid JSON from line 5, column \d+/);
  });

  it('a file that is not JSON at all is one problem on line 1', async () => {
    const entries = await all(['<html>not json</html>']);
    expect(entries).toEqual([
      { kind: 'problem', line: 1, message: expect.stringMatching(/not valid JSON from line 1/) },
    ]);
  });

  it('a huge bookmark is reported by position instead of filling memory', async () => {
    const entries = await all([
      '{"bookmarks": [{"content": {"url": "https://a.example/"}}, {"title": "',
      ...Array<string>(80).fill('x'.repeat(64 * 1024)),
      '", "content": {"url": "https://b.example/"}}, {"content": {"url": "https://c.example/"}}]}',
    ]);
    expect(entries).toEqual([
      { kind: 'bookmark', index: 0, url: 'https://a.example/', title: '', folders: [], tags: [] },
      {
        kind: 'problem',
        index: 1,
        message: 'bookmarks[1] is larger than 4 MiB (not a bookmark export); the rest was not read',
      },
    ]);
  });
});
