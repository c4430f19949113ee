import { describe, expect, it } from 'vitest';
import { parseNetscape } from './netscape.ts';
import type { Chunks, Entry } from './types.ts';

const all = async (chunks: Chunks) => {
  const out: Entry[] = [];
  for await (const e of parseNetscape(chunks)) out.push(e);
  return out;
};

const FILE = `<!DOCTYPE NETSCAPE-Bookmark-file-1>
<META HTTP-EQUIV="Content-Type" CONTENT="text/html; charset=UTF-8">
<TITLE>Bookmarks</TITLE>
<H1>Bookmarks</H1>
<DL><p>
    <DT><H3 ADD_DATE="1500000000">Dev &amp; Ops</H3>
    <DL><p>
        <DT><A HREF="https://a.example/?x=1&amp;y=2" ADD_DATE="1550000000" TAGS="rust,cli">Tom &amp; Jerry &lt;3 &#x263A;</A>
        <DD>A note about it
        <DT><H3>Deeper</H3>
        <DL><p>
            <DT><A HREF="https://b.example/">B</A>
        </DL><p>
        <DT><A HREF="javascript:alert(1)">bookmarklet</A>
    </DL><p>
    <DT><A HREF="https://c.example/">C</A>
    <DT><A>no address</A>
</DL><p>
`;

describe('parseNetscape', () => {
  it('reads nested folders, entities, dates, tags and notes, each with its line', async () => {
    const entries = await all([FILE]);
    expect(entries).toEqual([
      {
        kind: 'bookmark',
        line: 8,
        url: 'https://a.example/?x=1&y=2',
        title: 'Tom & Jerry <3 ☺',
        folders: ['Dev & Ops'],
        tags: ['rust', 'cli'],
        addedAt: new Date(1_550_000_000_000),
        note: 'A note about it',
      },
      { kind: 'bookmark', line: 12, url: 'https://b.example/', title: 'B', folders: ['Dev & Ops', 'Deeper'], tags: [] },
      {
        kind: 'bookmark',
        line: 14,
        url: 'javascript:alert(1)',
        title: 'bookmarklet',
        folders: ['Dev & Ops'],
        tags: [],
      },
      { kind: 'bookmark', line: 16, url: 'https://c.example/', title: 'C', folders: [], tags: [] },
      { kind: 'problem', line: 17, message: 'a link without an address (no HREF)' },
    ]);
  });

  it('gives the same entries and lines whatever the chunking (one character at a time)', async () => {
    expect(await all([...FILE])).toEqual(await all([FILE]));
  });

  it('a file cut inside a bookmark imports what comes before and reports the cut by line', async () => {
    const cut = FILE.slice(0, FILE.indexOf('">C</A>') + 4);
    const entries = await all([cut]);
    expect(entries.filter((e) => e.kind === 'bookmark').map((e) => e.kind === 'bookmark' && e.url)).toEqual([
      'https://a.example/?x=1&y=2',
      'https://b.example/',
      'javascript:alert(1)',
    ]);
    expect(entries.at(-1)).toEqual({
      kind: 'problem',
      line: 16,
      message: 'the file ends inside this bookmark (truncated)',
      url: 'https://c.example/',
    });
  });

  it('a file cut inside a tag is reported by line', async () => {
    const entries = await all(['<DL><p>\n<DT><A HREF="https://a.example/">A</A>\n<DT><A HREF="https://b.exa']);
    expect(entries).toEqual([
      { kind: 'bookmark', line: 2, url: 'https://a.example/', title: 'A', folders: [], tags: [] },
      { kind: 'problem', line: 3, message: 'the file ends inside a tag (truncated)' },
    ]);
  });

  it("reads Pocket's HTML export (lower-case tags, time_added, tags attribute)", async () => {
    const entries = await all([
      '<!DOCTYPE html>\n<html><body><h1>Unread</h1>\n<ul>\n<li><a href="https://p.example/x" time_added="1600000000" tags="read,later">P</a></li>\n</ul></body></html>',
    ]);
    expect(entries).toEqual([
      {
        kind: 'bookmark',
        line: 4,
        url: 'https://p.example/x',
        title: 'P',
        folders: [],
        tags: ['read', 'later'],
        addedAt: new Date(1_600_000_000_000),
      },
    ]);
  });

  it('a multi-byte character split between chunks stays whole', async () => {
    const bytes = Buffer.from('<DT><A HREF="https://a.example/">café ☺</A>');
    const at = bytes.indexOf(Buffer.from('☺')) + 1;
    const entries = await all([bytes.subarray(0, at), bytes.subarray(at)]);
    expect(entries[0]).toMatchObject({ title: 'café ☺' });
  });

  it('a huge title or note is kept short while reading (never held whole)', async () => {
    const chunk = 'word '.repeat(20_000);
    const chunks = [
      '<DT><A HREF="https://a.example/">',
      ...Array<string>(100).fill(chunk),
      '</A>\n<DD>',
      ...Array<string>(100).fill(chunk),
      '\n',
    ];
    const [entry] = await all(chunks);
    expect(entry).toMatchObject({ kind: 'bookmark', url: 'https://a.example/' });
    expect((entry as { title: string }).title.length).toBeLessThanOrEqual(10_000);
    expect((entry as { note: string }).note.length).toBeLessThanOrEqual(10_000);
  });

  it('a tag that never ends (a huge attribute) stops the reading with its line instead of filling memory', async () => {
    const entries = await all([
      '<DL><p>\n<DT><A HREF="https://a.example/">A</A>\n<DT><A HREF="https://b.example/" ICON="data:image/png;base64,',
      ...Array<string>(100).fill('A'.repeat(64 * 1024)),
      '">B</A>\n<DT><A HREF="https://c.example/">C</A>\n',
    ]);
    expect(entries).toEqual([
      { kind: 'bookmark', line: 2, url: 'https://a.example/', title: 'A', folders: [], tags: [] },
      {
        kind: 'problem',
        line: 3,
        message: 'a tag longer than 4 MiB (the file is not a bookmark export); the rest was not read',
      },
    ]);
  });

  it('reads a Firefox export: toolbar folder, folder descriptions, separators, icons, smart bookmarks', async () => {
    const firefox = [
      '<!DOCTYPE NETSCAPE-Bookmark-file-1>',
      '<!-- This is an automatically generated file. -->',
      '<META HTTP-EQUIV="Content-Type" CONTENT="text/html; charset=UTF-8">',
      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'self'; script-src 'none'; img-src data: *; object-src 'none'\"></meta>",
      '<TITLE>Bookmarks</TITLE>',
      '<H1>Bookmarks Menu</H1>',
      '<DL><p>',
      '    <DT><A HREF="place:parent=menu________&queryType=1">Recent Tags</A>',
      '    <HR>',
      '    <DT><A HREF="https://example.org/x" ADD_DATE="1600000000" LAST_MODIFIED="1600000001" ICON_URI="https://example.org/favicon.ico" ICON="data:image/png;base64,iVBORw0KGgo=" SHORTCUTURL="ex">Example</A>',
      '    <DD>Described',
      '    <DT><H3 ADD_DATE="1" LAST_MODIFIED="2" PERSONAL_TOOLBAR_FOLDER="true">Bookmarks Toolbar</H3>',
      '    <DD>Add bookmarks to this folder to see them displayed on the Bookmarks Toolbar',
      '    <DL><p>',
      '        <DT><A HREF="https://toolbar.example/">On the toolbar</A>',
      '    </DL><p>',
      '</DL>',
    ].join('\n');
    expect(await all([firefox])).toEqual([
      {
        kind: 'bookmark',
        line: 8,
        url: 'place:parent=menu________&queryType=1',
        title: 'Recent Tags',
        folders: [],
        tags: [],
      },
      {
        kind: 'bookmark',
        line: 10,
        url: 'https://example.org/x',
        title: 'Example',
        folders: [],
        tags: [],
        addedAt: new Date(1_600_000_000_000),
        note: 'Described',
      },
      {
        kind: 'bookmark',
        line: 15,
        url: 'https://toolbar.example/',
        title: 'On the toolbar',
        folders: ['Bookmarks Toolbar'],
        tags: [],
      },
    ]);
  });
});
