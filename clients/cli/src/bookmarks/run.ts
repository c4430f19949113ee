import { stat } from 'node:fs/promises';
import path from 'node:path';
import { ok, readClientEnv } from '@kg/sdk';
import { kg, type JsonOption } from '../context.ts';
import { EXIT, Failure, UsageError } from '../exit-codes.ts';
import { err, note, printFields, printJson } from '../output.ts';
import { detectFormat, place, readBookmarks, readHead, type BookmarkFormat } from '@kg/bookmarks';
import { ImportStopped, importBookmarks, type ImportProgress, type Outcome } from './importer.ts';
import { StateFile, sha256File } from './state.ts';

export interface ImportOpts extends JsonOption {
  format: 'auto' | BookmarkFormat;
}

const outcomeWord = (o: Outcome) =>
  o.kind === 'skipped' ? `skipped (${o.reason})` : o.kind === 'failed' ? `failed: ${o.error}` : o.kind;

/** A bar on a terminal (by bytes read); a plain line per entry otherwise. */
async function progressOf(tty: boolean, size: number) {
  let read = 0;
  if (!tty) {
    const progress: ImportProgress = {
      entry(index, entry, outcome) {
        const what = entry.kind === 'bookmark' ? entry.url : '';
        note(`[${index}] ${place(entry)} ${outcomeWord(outcome)}${what ? ` ${what}` : ''}`);
      },
      waiting: (s) => note(`rate limited by the server: waiting ${s} s`),
      resuming: (n) => note(`resuming: the ${n} entries an earlier run handled are passed over`),
    };
    return { progress, onBytes: undefined, stop: () => undefined };
  }
  const { SingleBar } = await import('cli-progress');
  const bar = new SingleBar({
    format: `Importing {bar} {percentage}% · {imported} imported · {duplicates} duplicates · {skipped} skipped · {failed} failed{wait}`,
    hideCursor: true,
    stream: process.stderr,
  });
  bar.start(Math.max(size, 1), 0, { imported: 0, duplicates: 0, skipped: 0, failed: 0, wait: '' });
  const progress: ImportProgress = {
    entry(_index, _entry, _outcome, counts) {
      const skipped = Object.values(counts.skipped).reduce((a, b) => a + b, 0);
      bar.update(read, { ...counts, skipped, wait: '' });
    },
    waiting: (s) => bar.update(read, { wait: ` · rate limited, waiting ${s} s` }),
    resuming: (n) => bar.update(read, { wait: ` · resuming after ${n} entries` }),
  };
  return {
    progress,
    onBytes: (n: number) => {
      read = n;
    },
    stop: () => bar.stop(),
  };
}

/** `kg import-bookmarks FILE`: streams the file, imports each bookmark, prints the summary. */
export async function runImportBookmarks(file: string, opts: ImportOpts): Promise<void> {
  const info = await stat(file).catch(() => null);
  if (!info?.isFile()) throw new UsageError(`not a file: ${file}`);
  const format = opts.format === 'auto' ? detectFormat(await readHead(file)) : opts.format;
  if (!format)
    throw new UsageError(
      `cannot tell the format of ${path.basename(file)}; name it with --format html|pocket-csv|karakeep-json`,
    );
  const client = kg();
  // Progress is kept per file content, server and tenant (another account starts afresh).
  const me = await ok(client.api.GET('/auth/me'));
  const stateFile = new StateFile(readClientEnv().configDir, await sha256File(file), client.baseUrl, me.tenant_id);
  const { progress, onBytes, stop } = await progressOf(!!process.stderr.isTTY && !opts.json, info.size);
  const started = Date.now();
  let summary;
  try {
    summary = await importBookmarks(client, readBookmarks(file, format, onBytes), stateFile, progress);
  } catch (e) {
    if (e instanceof ImportStopped)
      throw new Failure(`Import stopped: ${e.message}. Run the same command again to resume.`, EXIT.error);
    throw e;
  } finally {
    stop();
  }
  const seconds = (Date.now() - started) / 1000;
  if (opts.json) printJson({ file, format, ...summary, seconds });
  else {
    const skipped = Object.entries(summary.skipped);
    printFields([
      ['format', format],
      ['entries', summary.entries],
      ...(summary.resumed_from ? ([['resumed after', summary.resumed_from]] as Array<[string, unknown]>) : []),
      ['imported', summary.imported],
      ['duplicates', summary.duplicates],
      ['skipped', skipped.length ? skipped.map(([r, n]) => `${n} ${r.replace(/_/g, ' ')}`).join(', ') : 0],
      ['failed', summary.failed],
      ['time', `${seconds.toFixed(1)} s`],
    ]);
    for (const f of summary.failures) note(`${err.red('failed')} ${f.place}${f.url ? ` ${f.url}` : ''}: ${f.error}`);
  }
  if (summary.failed)
    throw new Failure(`${summary.failed} bookmark(s) could not be imported (the others were)`, EXIT.error);
}
