import { open } from 'node:fs/promises';
import type { BookmarkFormat } from './types.ts';

/**
 * The format of a bookmark file from its first bytes: JSON (Karakeep) starts with `{`, a
 * Netscape file with `<` (its doctype, or any tag), a Pocket CSV with a header naming a `url`
 * column. Undefined when none fits.
 */
export function detectFormat(head: string): BookmarkFormat | undefined {
  const start = head.replace(/^\uFEFF/, '').trimStart();
  if (start.startsWith('{') || start.startsWith('[')) return 'karakeep-json';
  if (start.startsWith('<') || /<!DOCTYPE\s+NETSCAPE-Bookmark-file/i.test(start)) return 'html';
  const header = start.split(/\r?\n/, 1)[0] ?? '';
  if (header.split(',').some((c) => c.trim().replace(/^"|"$/g, '').toLowerCase() === 'url')) return 'pocket-csv';
  return undefined;
}

/** Reads the first 4 KiB of a file for `detectFormat`. */
export async function readHead(file: string): Promise<string> {
  const handle = await open(file, 'r');
  try {
    const buffer = Buffer.alloc(4096);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    return buffer.subarray(0, bytesRead).toString('utf8');
  } finally {
    await handle.close();
  }
}
