import { createReadStream } from 'node:fs';
import { parseKarakeepJson } from './karakeep-json.ts';
import { parseNetscape } from './netscape.ts';
import { parsePocketCsv } from './pocket-csv.ts';
import type { BookmarkFormat, Chunks, Entry } from './types.ts';

const PARSERS: Record<BookmarkFormat, (input: Chunks) => AsyncGenerator<Entry>> = {
  html: parseNetscape,
  'pocket-csv': parsePocketCsv,
  'karakeep-json': parseKarakeepJson,
};

/** The entries of a bookmark file's content as it arrives (chunks from a stream, a blob store…). */
export const parseBookmarks = (input: Chunks, format: BookmarkFormat): AsyncGenerator<Entry> => PARSERS[format](input);

/**
 * The entries of a bookmark file, streamed in 64 KiB chunks. `onBytes` hears how far the
 * reading has got (for a progress bar).
 */
export function readBookmarks(
  file: string,
  format: BookmarkFormat,
  onBytes?: (read: number) => void,
): AsyncGenerator<Entry> {
  const stream = createReadStream(file, { highWaterMark: 64 * 1024 });
  if (onBytes) stream.on('data', () => onBytes(stream.bytesRead));
  return PARSERS[format](stream);
}
