import { describe, expect, it } from 'vitest';
import { parsePocketCsv } from './pocket-csv.ts';
import type { Entry } from './types.ts';

const all = async (chunks: string[]) => {
  const out: Entry[] = [];
  for await (const e of parsePocketCsv(chunks)) out.push(e);
  return out;
};

const CSV = [
  'title,url,time_added,tags,status',
  '"Commas, inside",https://a.example/,1700000000,x|y,unread',
  '"A title over',
  'two lines with ""quotes""",https://b.example/,1700000001,,archive',
  'bad "quote,https://c.example/,1,,',
  'ok,https://d.example/,1700000002,,unread',
  ',,,,',
  'no url,,1700000003,,unread',
].join('\n');

describe('parsePocketCsv', () => {
  it('reads quoted commas and newlines, tags and dates; a bad row is reported by line and the rest imports', async () => {
    const entries = await all([CSV + '\n']);
    expect(entries).toEqual([
      {
        kind: 'bookmark',
        line: 2,
        url: 'https://a.example/',
        title: 'Commas, inside',
        folders: [],
        tags: ['x', 'y'],
        addedAt: new Date(1_700_000_000_000),
      },
      {
        kind: 'bookmark',
        line: 3,
        url: 'https://b.example/',
        title: 'A title over two lines with "quotes"',
        folders: [],
        tags: [],
        addedAt: new Date(1_700_000_001_000),
      },
      { kind: 'problem', line: 5, message: expect.stringContaining('unreadable row') },
      {
        kind: 'bookmark',
        line: 6,
        url: 'https://d.example/',
        title: 'ok',
        folders: [],
        tags: [],
        addedAt: new Date(1_700_000_002_000),
      },
      { kind: 'problem', line: 7, message: 'a row without a URL' },
      { kind: 'problem', line: 8, message: 'a row without a URL' },
    ]);
  });

  it('the same entries whatever the chunking', async () => {
    const chunks = CSV.match(/[\s\S]{1,7}/g)!;
    expect(await all(chunks)).toEqual(await all([CSV]));
  });

  it('a file cut inside a quoted cell imports the rows before and reports the cut by line', async () => {
    const entries = await all(['title,url\nA,https://a.example/\n"cut here,https://b.example/\n']);
    expect(entries).toEqual([
      { kind: 'bookmark', line: 2, url: 'https://a.example/', title: 'A', folders: [], tags: [] },
      { kind: 'problem', line: 3, message: expect.stringMatching(/Quote Not Closed/) },
    ]);
  });

  it('a CSV without a url column is refused on line 1', async () => {
    expect(await all(['name,address\nA,https://a.example/\n'])).toEqual([
      { kind: 'problem', line: 1, message: 'not a Pocket CSV export: no "url" column' },
    ]);
  });

  it('a huge cell is reported by line instead of filling memory', async () => {
    const entries = await all([
      'title,url\nA,https://a.example/\n"',
      ...Array<string>(80).fill('x'.repeat(64 * 1024)),
      '",https://b.example/\nC,https://c.example/\n',
    ]);
    expect(entries).toEqual([
      { kind: 'bookmark', line: 2, url: 'https://a.example/', title: 'A', folders: [], tags: [] },
      { kind: 'problem', line: 3, message: 'a row longer than 4 MiB (not a bookmark export); the rest was not read' },
    ]);
  });
});
