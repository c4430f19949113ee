import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import v8 from 'node:v8';
import vm from 'node:vm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { generateBookmarkFile as generate } from './generate.ts';
import { readBookmarks } from './parse.ts';
import type { BookmarkFormat } from './types.ts';

// Writing and reading 100 MB on a shared two-core machine takes a while.
vi.setConfig({ testTimeout: 180_000 });

const MB = 1024 * 1024;
// What the parser keeps is measured after a full collection (garbage not yet collected says nothing).
v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;
let dir: string;

/** Reads every entry, sampling the live heap as it goes; the peak growth over the start, in MB. */
async function readAll(file: string, format: BookmarkFormat) {
  gc();
  const base = process.memoryUsage().heapUsed;
  let peak = 0;
  let bookmarks = 0;
  let problems = 0;
  for await (const e of readBookmarks(file, format)) {
    if (e.kind === 'bookmark') bookmarks++;
    else problems++;
    if (bookmarks % 20_000 === 0) {
      gc();
      peak = Math.max(peak, process.memoryUsage().heapUsed - base);
    }
  }
  return { bookmarks, problems, peakMb: peak / MB };
}

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'kg-bookmarks-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('a huge bookmark file streams in bounded memory', () => {
  it('100 MB of Netscape HTML: every bookmark read, the heap grows by far less than the file', async () => {
    const file = path.join(dir, 'huge.html');
    const count = await generate(
      file,
      100 * MB,
      '<!DOCTYPE NETSCAPE-Bookmark-file-1>\n<DL><p>\n<DT><H3>Folder</H3>\n<DL><p>\n',
      (i) =>
        `<DT><A HREF="https://example.com/page/${i}" ADD_DATE="1550000000">Page ${i} &amp; more</A>\n<DD>A note ${i}\n`,
      '</DL><p>\n</DL><p>\n',
    );
    expect((await stat(file)).size).toBeGreaterThanOrEqual(100 * MB);
    const { bookmarks, problems, peakMb } = await readAll(file, 'html');
    expect(bookmarks).toBe(count);
    expect(problems).toBe(0);
    // Held whole, the file would take 100 MB or more of heap (200 MB as a JS string).
    expect(peakMb).toBeLessThan(16);
  });

  it('16 MB of Pocket CSV and of Karakeep JSON: the same', async () => {
    const csv = path.join(dir, 'huge.csv');
    const csvCount = await generate(
      csv,
      16 * MB,
      'title,url,time_added,tags,status\n',
      (i) => `"Title, ${i}",https://example.com/${i},1700000000,a|b,unread\n`,
      '',
    );
    const json = path.join(dir, 'huge.json');
    const jsonCount = await generate(
      json,
      16 * MB,
      '{"bookmarks":[\n',
      (i) =>
        `${i ? ',' : ''}{"createdAt":1700000000,"title":"T ${i}","tags":["a"],"content":{"type":"link","url":"https://example.com/${i}"},"note":null}\n`,
      ']}\n',
    );
    for (const [file, format, count] of [
      [csv, 'pocket-csv', csvCount],
      [json, 'karakeep-json', jsonCount],
    ] as const) {
      const { bookmarks, problems, peakMb } = await readAll(file, format);
      expect({ format, bookmarks, problems }).toEqual({ format, bookmarks: count, problems: 0 });
      expect(peakMb).toBeLessThan(16);
    }
  });
});
