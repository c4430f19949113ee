import Table from 'cli-table3';
import pc from 'picocolors';
import { ApiError } from '@kg/sdk';

/** Colours only when stdout (or stderr, for messages) is a terminal, and never with NO_COLOR. */
const wantColour = (stream: NodeJS.WriteStream) =>
  !!stream.isTTY && !process.env['NO_COLOR'] && process.env['TERM'] !== 'dumb';
export const out = pc.createColors(wantColour(process.stdout));
export const err = pc.createColors(wantColour(process.stderr));

export const print = (line = ''): void => void process.stdout.write(line + '\n');
export const note = (line: string): void => void process.stderr.write(line + '\n');
export const printJson = (value: unknown): void => void process.stdout.write(JSON.stringify(value, null, 2) + '\n');

export type Column<T> = [header: string, cell: (row: T) => unknown];

/** An aligned, borderless table (cli-table3), headers bold on a terminal. */
export function printTable<T>(
  rows: readonly T[],
  columns: Column<T>[],
  opts: { empty?: string; indent?: string } = {},
): void {
  if (!rows.length) {
    note(err.dim(opts.empty ?? 'Nothing to show.'));
    return;
  }
  const table = new Table({
    head: columns.map(([h]) => out.bold(h)),
    chars: {
      top: '',
      'top-mid': '',
      'top-left': '',
      'top-right': '',
      bottom: '',
      'bottom-mid': '',
      'bottom-left': '',
      'bottom-right': '',
      left: '',
      'left-mid': '',
      mid: '',
      'mid-mid': '',
      right: '',
      'right-mid': '',
      middle: '  ',
    },
    style: { head: [], border: [], 'padding-left': 0, 'padding-right': 0 },
  });
  for (const row of rows) table.push(columns.map(([, cell]) => cellText(cell(row))));
  print(
    table
      .toString()
      .split('\n')
      .map((l) => (opts.indent ?? '') + l.trimEnd())
      .join('\n'),
  );
}

/** Key/value lines for one record. */
export function printFields(fields: Array<[string, unknown]>): void {
  const width = Math.max(...fields.map(([k]) => k.length));
  for (const [k, v] of fields) print(`${out.dim(k.padEnd(width))}  ${cellText(v)}`);
}

function cellText(v: unknown): string {
  if (v === null || v === undefined || v === '') return out.dim('—');
  if (Array.isArray(v)) return v.length ? v.join(', ') : out.dim('—');
  if (typeof v === 'object') return JSON.stringify(v);
  return String(v).replace(/\s+/g, ' ');
}

export const shorten = (s: string, max: number) => (s.length > max ? s.slice(0, max - 1) + '…' : s);

export const when = (iso: string | null | undefined) => (iso ? iso.replace('T', ' ').replace(/\.\d+Z$/, 'Z') : '');

/** An error for people: problem+json title, detail and field errors; never a stack trace. */
export function printError(e: unknown, json: boolean): void {
  if (json && e instanceof ApiError) {
    process.stderr.write(
      JSON.stringify({ status: e.status, type: e.type, title: e.title, detail: e.detail, errors: e.errors }) + '\n',
    );
    return;
  }
  if (e instanceof ApiError) {
    note(
      `${err.red(err.bold('Error:'))} ${e.title}${e.detail && e.detail !== e.title ? ` — ${e.detail}` : ''} ${err.dim(`(HTTP ${e.status})`)}`,
    );
    for (const f of e.errors) note(`  ${err.yellow(f.path)}: ${f.message}`);
    if (e.retryAfterSeconds) note(err.dim(`  Try again in ${e.retryAfterSeconds} s.`));
    return;
  }
  const message = e instanceof Error ? e.message : String(e);
  note(`${err.red(err.bold('Error:'))} ${message}`);
}
