import { stat } from 'node:fs/promises';
import path from 'node:path';
import { ok, uploadImport, type Import, type KgClient } from '@kg/sdk';
import { kg, type JsonOption } from '../context.ts';
import { EXIT, Failure, UsageError } from '../exit-codes.ts';
import { err, note, out, print, printFields, printJson, printTable, shorten, when } from '../output.ts';
import { StoppedFollowing, followImport } from './follow.ts';
import { bytes, errorLines, followHint, importFields, percent } from './format.ts';
import { barView, plainView, quietView, type ProgressView } from './view.ts';

export interface ImportBookmarksOpts extends JsonOption {
  format?: Import['format'];
  para?: boolean;
  /** commander's `--no-wait`: false when given. */
  wait: boolean;
}

export interface ListOpts extends JsonOption {
  page: number;
  perPage: number;
}

export interface ShowOpts extends JsonOption {
  follow?: boolean;
}

const byId = (id: string) => ({ params: { path: { id } } });
const getImport = (client: KgClient) => (id: string) => ok(client.api.GET('/imports/{id}', byId(id)));

/** The terminal gets bars, a pipe or a log gets lines, `--json` gets neither. */
const onTerminal = (opts: JsonOption) => !!process.stderr.isTTY && !opts.json;

/** `kg import-bookmarks FILE`: uploads the file (streamed) to POST /imports, then follows it unless --no-wait. */
export async function importBookmarks(file: string, opts: ImportBookmarksOpts): Promise<void> {
  const info = await stat(file).catch(() => null);
  if (!info?.isFile()) throw new UsageError(`not a file: ${file}`);
  const client = kg();
  const created = await upload(client, file, info.size, opts);
  if (!opts.wait) {
    if (opts.json) return printJson(created);
    print(created.id);
    note(err.dim(`Import ${created.id} of ${created.filename} (${bytes(created.size_bytes)}) is ${created.status}.`));
    note(err.dim(followHint(created.id)));
    return;
  }
  if (!opts.json && !onTerminal(opts))
    note(`Uploaded ${created.filename} (${bytes(created.size_bytes)}): import ${created.id} ${created.status}`);
  await followAndReport(
    client,
    created,
    opts,
    onTerminal(opts) ? await barView(file) : opts.json ? quietView() : plainView(),
  );
}

async function upload(client: KgClient, file: string, size: number, opts: ImportBookmarksOpts): Promise<Import> {
  const { SingleBar } = await import('cli-progress');
  const bar = onTerminal(opts)
    ? new SingleBar({
        format: `Uploading ${path.basename(file)} {bar} {percentage}% · {value}/{total} bytes`,
        hideCursor: true,
        stream: process.stderr,
      })
    : undefined;
  bar?.start(Math.max(size, 1), 0);
  try {
    return await uploadImport(client, file, {
      source: 'cli',
      ...(opts.format ? { format: opts.format } : {}),
      ...(opts.para ? { para: true } : {}),
      onProgress: (sent) => bar?.update(sent),
    });
  } finally {
    bar?.stop();
  }
}

/**
 * Follows an import to its end with `view`, then prints it. Ctrl-C stops following only: the
 * import goes on in the server, and the message says how to follow it again (exit 130).
 */
async function followAndReport(client: KgClient, start: Import, opts: JsonOption, view: ProgressView): Promise<void> {
  const abort = new AbortController();
  const interrupt = () => abort.abort();
  process.once('SIGINT', interrupt);
  let final: Import;
  try {
    view.update(start);
    final = await followImport(getImport(client), start.id, view, { signal: abort.signal });
  } catch (e) {
    view.stop();
    if (e instanceof StoppedFollowing) {
      const at = e.last ? ` (${e.last.status}, ${percent(e.last)}% read)` : '';
      throw new Failure(
        `Stopped following import ${start.id}${at}; it goes on in the server. ${followHint(start.id)}`,
        EXIT.interrupted,
      );
    }
    note(err.dim(`Import ${start.id} may still be under way. ${followHint(start.id)}`));
    throw e;
  } finally {
    process.removeListener('SIGINT', interrupt);
  }
  view.stop();
  report(final, opts);
}

/** The final import: its fields (or JSON), the entries it could not import by line; exit 1 unless completed. */
function report(imp: Import, opts: JsonOption): void {
  if (opts.json) printJson(imp);
  else {
    printFields(importFields(imp));
    for (const line of errorLines(imp)) note(`${err.yellow('invalid')} ${line}`);
  }
  if (imp.status === 'failed') throw new Failure(`Import ${imp.id} failed: ${imp.failure ?? 'no reason given'}`);
  if (imp.status === 'cancelled')
    throw new Failure(`Import ${imp.id} was cancelled (the captures it made before stay)`);
}

export async function list(opts: ListOpts): Promise<void> {
  const page = await ok(kg().api.GET('/imports', { params: { query: { page: opts.page, per_page: opts.perPage } } }));
  if (opts.json) return printJson(page);
  printTable<Import>(
    page.data,
    [
      ['ID', (i) => i.id],
      ['STATUS', (i) => i.status],
      ['FILE', (i) => shorten(i.filename, 40)],
      ['READ', (i) => `${percent(i)}%`],
      ['BOOKMARKS', (i) => i.counts.seen],
      ['CREATED', (i) => i.counts.created],
      ['DUPLICATES', (i) => i.counts.duplicates],
      ['SKIPPED', (i) => i.counts.skipped],
      ['INVALID', (i) => i.counts.invalid],
      ['STARTED', (i) => when(i.created_at)],
    ],
    { empty: 'No bookmark imports yet: `kg import-bookmarks FILE` starts one.' },
  );
  const pages = Math.max(1, Math.ceil(page.total / page.per_page));
  if (page.data.length)
    note(err.dim(`page ${page.page} of ${pages} · ${page.total} import${page.total === 1 ? '' : 's'}`));
}

export async function show(id: string, opts: ShowOpts): Promise<void> {
  const client = kg();
  const imp = await getImport(client)(id);
  if (!opts.follow) {
    if (opts.json) return printJson(imp);
    printFields(importFields(imp));
    for (const line of errorLines(imp)) note(`${err.yellow('invalid')} ${line}`);
    return;
  }
  await followAndReport(
    client,
    imp,
    opts,
    onTerminal(opts) ? await barView(imp.filename) : opts.json ? quietView() : plainView(),
  );
}

export async function cancel(id: string, opts: JsonOption): Promise<void> {
  const imp = await ok(kg().api.POST('/imports/{id}/cancel', byId(id)));
  if (opts.json) return printJson(imp);
  print(imp.id);
  note(
    `Import ${imp.id} of ${imp.filename} ${out.bold(imp.status)}: ${imp.counts.created} capture${imp.counts.created === 1 ? '' : 's'} made before stay.`,
  );
}
