import { type Command, Option } from 'commander';
import { examples, jsonOption } from '../context.ts';
import type { ImportOpts } from '../bookmarks/run.ts';

export function importBookmarksCommand(program: Command): void {
  examples(
    jsonOption(
      program
        .command('import-bookmarks')
        .summary('import bookmarks (browser HTML, Pocket CSV, Karakeep JSON) as URL captures; resumable')
        .description(
          'Import a bookmark file as URL captures: the Netscape bookmark HTML every browser exports (and Raindrop, Linkwarden, Karakeep, Pocket), Pocket\'s CSV export, or Karakeep\'s JSON export. The file is streamed (any size). Each http(s) bookmark becomes a capture (source "cli"); its folders and tags, its date (ADD_DATE) and note are kept in the capture\'s "why". Already captured URLs are skipped as duplicates; javascript:, data:, file: and other non-web addresses are skipped and counted; entries that cannot be read are reported with their line. An interrupted import resumes where it stopped when run again (state under KG_CONFIG_DIR/imports). The API\'s rate limit is waited out.',
        )
        .argument('<file>', 'the bookmark file')
        .addOption(
          new Option('--format <format>', "the file's format (auto: from its content)")
            .choices(['auto', 'html', 'pocket-csv', 'karakeep-json'])
            .default('auto'),
        ),
    ),
    [
      'kg import-bookmarks ~/Downloads/bookmarks.html',
      'kg import-bookmarks pocket-export.csv --json | jq .imported',
      'kg import-bookmarks karakeep-export.json --format karakeep-json',
    ],
  ).action(async (file: string, opts: ImportOpts) => {
    // Loaded when the command runs: the parsers and their libraries (zod, entities, stream-json)
    // would slow every other kg command's start.
    const { runImportBookmarks } = await import('../bookmarks/run.ts');
    await runImportBookmarks(file, opts);
  });
}
