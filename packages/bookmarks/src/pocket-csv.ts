import { once } from 'node:events';
import { parse, type CsvError, type InfoRecord } from 'csv-parse';
import { fromUnixSeconds, splitTags, type Chunks, type Entry } from './types.ts';

type Row = Record<string, string | undefined>;

const MAX_RECORD = 4 * 1024 * 1024;

/**
 * Reads Pocket's CSV export (`title,url,time_added,tags,status`, tags as `a|b`) with
 * csv-parse, chunk by chunk: quoted commas and newlines are the library's job, memory stays
 * bounded. Columns are found by their header name, so another order or extra columns work. A
 * row csv-parse cannot read (a stray quote, a file cut inside a quoted cell) is a problem with
 * its line; the rows around it are still imported. Entries come in the file's order.
 */
export async function* parsePocketCsv(input: Chunks): AsyncGenerator<Entry> {
  const queue: Entry[] = [];
  let header = 'unknown' as 'unknown' | 'ok' | 'bad';
  let tooBig: number | undefined;
  const parser = parse({
    bom: true,
    columns: (names: string[]) => names.map((h) => h.trim().toLowerCase()),
    relax_column_count: true,
    skip_empty_lines: true,
    skip_records_with_error: true,
    // A row over 4 MiB (a cell the file never closes, a hostile file) is skipped, never held.
    max_record_size: MAX_RECORD,
    raw: true,
    on_skip: (e: CsvError | undefined) => {
      // csv-parse does not find its feet after an oversized row: stop there.
      if (e?.code === 'CSV_MAX_RECORD_SIZE') tooBig ??= lineOf(e);
      else queue.push({ kind: 'problem', line: lineOf(e), message: `unreadable row: ${e?.message ?? 'malformed'}` });
      return undefined;
    },
    // With `raw`, csv-parse hands over { record, raw }: the raw text gives the row's first line.
    on_record: ({ record, raw }: { record: Row; raw: string }, context: InfoRecord) => {
      if (header === 'unknown') header = 'url' in record ? 'ok' : 'bad';
      if (header === 'bad') return null;
      const line = context.lines - (raw.replace(/\r?\n$/, '').split('\n').length - 1);
      queue.push(toEntry(record, line));
      return null;
    },
  });
  let fatal: Error | undefined;
  parser.on('error', (e: Error) => (fatal = e));
  parser.resume();
  for await (const chunk of input) {
    if (fatal) break;
    if (!parser.write(chunk)) await Promise.race([once(parser, 'drain'), once(parser, 'error')]).catch(() => {});
    yield* queue.splice(0);
    if (header === 'bad' || tooBig !== undefined) break;
  }
  if (tooBig !== undefined) {
    parser.destroy();
    yield {
      kind: 'problem',
      line: tooBig,
      message: 'a row longer than 4 MiB (not a bookmark export); the rest was not read',
    };
    return;
  }
  if (!fatal && header !== 'bad') {
    parser.end();
    await once(parser, 'end').catch(() => {});
  }
  yield* queue.splice(0);
  if (header === 'bad') yield { kind: 'problem', line: 1, message: 'not a Pocket CSV export: no "url" column' };
  if (fatal)
    yield { kind: 'problem', line: lineOf(fatal), message: `the file cannot be read past here: ${fatal.message}` };
}

function toEntry(record: Row, line: number): Entry {
  const url = (record['url'] ?? '').trim();
  if (!url) return { kind: 'problem', line, message: 'a row without a URL' };
  const addedAt = fromUnixSeconds(record['time_added']);
  return {
    kind: 'bookmark',
    line,
    url,
    title: (record['title'] ?? '').replace(/\s+/g, ' ').trim(),
    folders: [],
    tags: splitTags(record['tags'], /[|,]/),
    ...(addedAt ? { addedAt } : {}),
  };
}

/** The line csv-parse names in its error. */
const lineOf = (e: unknown): number | undefined => {
  const lines = (e as { lines?: unknown } | undefined)?.lines;
  return typeof lines === 'number' ? lines : undefined;
};
