import type { Import } from '@kg/sdk';
import { formatBytes as bytes, percentRead as percent } from '@kg/sdk/import-progress';
import { when } from '../output.ts';

export {
  FINAL_IMPORT_STATUSES as FINAL,
  isFinal,
  formatBytes as bytes,
  percentRead as percent,
} from '@kg/sdk/import-progress';

/** "3 created · 1 duplicate · 3 skipped · 1 invalid". */
export function countsText(c: Import['counts']): string {
  const n = (k: number, one: string, many = `${one}s`) => `${k} ${k === 1 ? one : many}`;
  return [`${c.created} created`, n(c.duplicates, 'duplicate'), `${c.skipped} skipped`, `${c.invalid} invalid`].join(
    ' · ',
  );
}

/** One plain line of progress (a log, not a terminal): "imp_… running 45% (1.2 MiB of 2.6 MiB) · 120 read · …". */
export function progressLine(imp: Import): string {
  const { bytes_read, size_bytes } = imp.progress;
  return `${imp.id} ${imp.status} ${percent(imp)}% (${bytes(bytes_read)} of ${bytes(size_bytes)}) · ${imp.counts.seen} read · ${countsText(imp.counts)}`;
}

/** What changed between two looks, for the plain lines: status, counts or bytes. */
export const sameProgress = (a: Import | undefined, b: Import) =>
  !!a &&
  a.status === b.status &&
  a.progress.bytes_read === b.progress.bytes_read &&
  JSON.stringify(a.counts) === JSON.stringify(b.counts);

/** The entries that could not be imported, one line each: "line 17: a link without an address". */
export function errorLines(imp: Pick<Import, 'errors' | 'counts'>): string[] {
  const lines = imp.errors.map((e) => `${e.line > 0 ? `line ${e.line}` : 'entry'}: ${e.reason.replace(/\s+/g, ' ')}`);
  const more = imp.counts.invalid - imp.errors.length;
  if (more > 0) lines.push(`… and ${more} more (the first ${imp.errors.length} are kept)`);
  return lines;
}

/** The fields `kg imports show` and the end of `kg import-bookmarks` print. */
export function importFields(imp: Import): Array<[string, unknown]> {
  const took =
    imp.finished_at !== null
      ? `${((Date.parse(imp.finished_at) - Date.parse(imp.created_at)) / 1000).toFixed(1)} s`
      : undefined;
  return [
    ['id', imp.id],
    ['status', imp.status],
    ['file', `${imp.filename} (${bytes(imp.size_bytes)})`],
    ['format', imp.format],
    ['para', imp.para ? 'yes' : 'no'],
    ['read', `${percent(imp)}% (${bytes(imp.progress.bytes_read)})`],
    ['bookmarks', imp.counts.seen],
    ['created', imp.counts.created],
    ['duplicates', imp.counts.duplicates],
    ['skipped', imp.counts.skipped],
    ['invalid', imp.counts.invalid],
    ...(imp.failure ? ([['failure', imp.failure]] as Array<[string, unknown]>) : []),
    ['started', when(imp.created_at)],
    ...(took ? ([['took', took]] as Array<[string, unknown]>) : []),
  ];
}

/** How to look at an import again, or stop it (after Ctrl-C, or with --no-wait). */
export const followHint = (id: string) =>
  `Follow it again with \`kg imports show ${id} --follow\`; stop it with \`kg imports cancel ${id}\`.`;
