import { writeFileSync } from 'node:fs';
import { page } from './pages';

/**
 * A Netscape bookmark file (what every browser exports) of `count` bookmarks in `folders`
 * folders, spread over `hosts` loopback hosts (127.0.0.1 … 127.0.0.N) of the page server.
 * Every 100th bookmark repeats an earlier URL (a duplicate the import counts), so
 * `count - floor(count / 100)` captures are expected.
 */
export function writeBookmarkFile(file: string, opts: { count: number; hosts: number; folders: number; port: number }) {
  const url = (i: number) => `http://127.0.0.${1 + (i % opts.hosts)}:${opts.port}/b/${i}`;
  const lines = ['<!DOCTYPE NETSCAPE-Bookmark-file-1>', '<TITLE>Bookmarks</TITLE>', '<H1>Bookmarks</H1>', '<DL><p>'];
  const perFolder = Math.ceil(opts.count / opts.folders);
  let duplicates = 0;
  for (let f = 0; f < opts.folders; f++) {
    lines.push(`<DT><H3 ADD_DATE="1600000000">Folder ${f}</H3>`, '<DL><p>');
    for (let i = f * perFolder; i < Math.min(opts.count, (f + 1) * perFolder); i++) {
      const dup = i > 0 && i % 100 === 0;
      if (dup) duplicates++;
      const target = dup ? i - 1 : i;
      lines.push(`<DT><A HREF="${url(target)}" ADD_DATE="${1600000000 + i}">${page(target).title}</A>`);
    }
    lines.push('</DL><p>');
  }
  lines.push('</DL><p>', '');
  writeFileSync(file, lines.join('\n'));
  return { expectedCaptures: opts.count - duplicates, duplicates };
}
