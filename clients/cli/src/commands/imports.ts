import type { Command } from 'commander';
import { examples, int, jsonOption } from '../context.ts';
import type { ListOpts, ShowOpts } from '../imports/actions.ts';

// The actions load when an imports command runs, not at every kg start.
const actions = () => import('../imports/actions.ts');

export function importCommands(program: Command): void {
  const imports = examples(
    program
      .command('imports')
      .description('Bookmark imports (started with `kg import-bookmarks FILE`): list them, follow one, cancel one.'),
    ['kg imports list', 'kg imports show imp_01jd… --follow', 'kg imports cancel imp_01jd…'],
  );

  examples(
    jsonOption(
      imports
        .command('list')
        .alias('ls')
        .description('List the bookmark imports, newest first, with their progress and counts.')
        .option('--page <n>', 'page number', int(1, 1_000_000), 1)
        .option('--per-page <n>', 'imports per page (1–100)', int(1, 100), 20),
    ),
    ['kg imports list', 'kg imports list --json | jq -r \'.data[] | select(.status == "running") | .id\''],
  ).action(async (opts: ListOpts) => (await actions()).list(opts));

  examples(
    jsonOption(
      imports
        .command('show')
        .alias('get')
        .description(
          'Show an import: status, how much of the file was read, counts and the entries it could not import, by line. --follow follows it to its end.',
        )
        .argument('<id>', 'import id (imp_…)')
        .option(
          '--follow',
          'follow it until it finishes (a progress bar on a terminal); exit 1 if it failed or was cancelled',
        ),
    ),
    ['kg imports show imp_01jd…', 'kg imports show imp_01jd… --follow'],
  ).action(async (id: string, opts: ShowOpts) => (await actions()).show(id, opts));

  examples(
    jsonOption(
      imports
        .command('cancel')
        .description(
          'Stop a queued or running import; the captures it already made stay. An import that has finished cannot be cancelled (exit 1).',
        )
        .argument('<id>', 'import id (imp_…)'),
    ),
    ['kg imports cancel imp_01jd…'],
  ).action(async (id: string, opts: { json?: boolean }) => (await actions()).cancel(id, opts));
}
