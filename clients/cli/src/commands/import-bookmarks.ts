import { type Command, Option } from 'commander';
import { examples, jsonOption } from '../context.ts';
import type { ImportBookmarksOpts } from '../imports/actions.ts';

export const IMPORT_FORMATS = ['netscape-html', 'pocket-csv', 'karakeep-json'] as const;

export function importBookmarksCommand(program: Command): void {
  examples(
    jsonOption(
      program
        .command('import-bookmarks')
        .summary('import a bookmark file (browser HTML, Pocket CSV, Karakeep JSON) as URL captures, on the server')
        .description(
          'Upload a bookmark file to the server, which imports it in the background: the Netscape bookmark HTML every browser exports (and Raindrop, Linkwarden, Karakeep, Pocket), Pocket\'s CSV export, or Karakeep\'s JSON export (up to 100 MiB by default; the file is streamed). Each http(s) bookmark becomes a URL capture (source "cli") whose folders become tags, with its date and note; addresses already captured count as duplicates, javascript:, data:, file: and other non-web addresses are skipped, entries that cannot be read are listed by line. Then it follows the import (a progress bar on a terminal, a line now and then otherwise) and prints the counts; exit 1 if it failed or was cancelled. Ctrl-C stops following only: the import goes on (`kg imports show ID --follow`). An import the server was running when it stopped resumes by itself.',
        )
        .argument('<file>', 'the bookmark file (.html, .csv or .json)')
        .addOption(
          new Option('--format <format>', "the file's format (default: detected from its content)").choices(
            IMPORT_FORMATS,
          ),
        )
        .option('--para', 'folders also become PARA items')
        .option(
          '--no-wait',
          'print the import id once uploaded and return (follow it with `kg imports show ID --follow`)',
        ),
    ),
    [
      'kg import-bookmarks ~/Downloads/bookmarks.html',
      'kg import-bookmarks bookmarks.html --para',
      'kg import-bookmarks pocket-export.csv --json | jq .counts',
      'ID=$(kg import-bookmarks karakeep-export.json --format karakeep-json --no-wait)',
    ],
  ).action(async (file: string, opts: ImportBookmarksOpts) =>
    (await import('../imports/actions.ts')).importBookmarks(file, opts),
  );
}
