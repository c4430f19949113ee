import { stat } from 'node:fs/promises';
import type { SingleBar } from 'cli-progress';
import { type Command } from 'commander';
import { examples, jsonOption, kg, type JsonOption } from '../context.ts';
import { EXIT, Failure, UsageError } from '../exit-codes.ts';
import { err, note, printFields, printJson } from '../output.ts';
import { exportVault } from '../vault/export-vault.ts';
import { importVault, WIKI_LINK_TYPE } from '../vault/import-vault.ts';

/** A progress bar per phase on a terminal; nothing otherwise (the summary says what happened). */
async function phaseBar(enabled: boolean) {
  const { SingleBar: Bar } = await import('cli-progress');
  let bar: SingleBar | undefined;
  return {
    phase(name: string, total: number) {
      bar?.stop();
      if (!enabled) return;
      bar = new Bar({
        format: `${name.padEnd(5)} {bar} {value}/{total}`,
        hideCursor: true,
        stream: process.stderr,
      });
      bar.start(total, 0);
    },
    tick() {
      bar?.increment();
    },
    stop() {
      bar?.stop();
    },
  };
}

export function vaultCommands(program: Command): void {
  examples(
    jsonOption(
      program
        .command('import')
        .summary('import an Obsidian-style folder of markdown notes (idempotent)')
        .description(
          `Import a folder of markdown notes with front matter and [[wiki links]] (an Obsidian vault). Each note is a node: the one named by its front matter kg_id, else the node with exactly its title, else a new one (title: front matter title, else the file name; tags, summary or description, status from the front matter; the body as it is). Wiki links between notes ([[Name]], [[Name|shown]], [[Name#heading]], [[folder/Name]], aliases) become "${WIKI_LINK_TYPE}" links, both ways; links to attachments and to missing notes are counted, not made; links to nodes outside the vault are kept. Hidden folders (.obsidian, .trash) are skipped. Running it again changes nothing.`,
        )
        .argument('<folder>', 'the vault folder'),
    ),
    ['kg import ~/Notes', 'kg import ~/Notes --json | jq .created'],
  ).action(async (folder: string, opts: JsonOption) => {
    const info = await stat(folder).catch(() => null);
    if (!info?.isDirectory()) throw new UsageError(`not a folder: ${folder}`);
    const bar = await phaseBar(!!process.stderr.isTTY && !opts.json);
    const started = Date.now();
    const summary = await importVault(kg(), folder, bar).finally(() => bar.stop());
    const seconds = (Date.now() - started) / 1000;
    if (opts.json) printJson({ ...summary, seconds });
    else {
      printFields([
        ['notes', summary.notes],
        ['created', summary.created],
        ['updated', summary.updated],
        ['skipped', summary.skipped],
        ['failed', summary.failed.length],
        ['links', `${summary.links.total} between notes, ${summary.links.unresolved} to missing notes`],
        ['time', `${seconds.toFixed(1)} s`],
      ]);
      for (const f of summary.failed) note(`${err.red('failed')} ${f.file}: ${f.error}`);
    }
    if (summary.failed.length) throw new Failure(`${summary.failed.length} note(s) could not be imported`, EXIT.error);
  });

  examples(
    jsonOption(
      program
        .command('export')
        .summary('export every node as markdown with front matter and wiki links')
        .description(
          'Export every node as a markdown file with front matter (title, kg_id, tags, summary, status, links as [[wiki links]]) into a folder; kg import of that folder maps the files back to the same nodes. Unchanged files are not rewritten.',
        )
        .argument('<folder>', 'where to write (created if missing)'),
    ),
    ['kg export ~/kg-backup', 'kg export ./vault && kg import ./vault   # round trip: nothing changes'],
  ).action(async (folder: string, opts: JsonOption) => {
    const bar = await phaseBar(!!process.stderr.isTTY && !opts.json);
    const summary = await exportVault(kg(), folder, bar).finally(() => bar.stop());
    if (opts.json) return printJson(summary);
    printFields([
      ['nodes', summary.nodes],
      ['written', summary.written],
      ['unchanged', summary.unchanged],
    ]);
  });
}
