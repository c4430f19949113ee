import { createWriteStream } from 'node:fs';
import { once } from 'node:events';

/**
 * Writes a large bookmark file for tests and benchmarks: `head`, then `line(i)` for i = 0, 1, …
 * until the file holds `bytes`, then `tail`, honouring backpressure (never held in memory).
 * Resolves with how many lines (entries) it wrote.
 */
export async function generateBookmarkFile(
  file: string,
  bytes: number,
  head: string,
  line: (i: number) => string,
  tail: string,
): Promise<number> {
  const out = createWriteStream(file);
  out.write(head);
  let written = head.length;
  let i = 0;
  while (written < bytes) {
    const l = line(i++);
    written += Buffer.byteLength(l);
    if (!out.write(l)) await once(out, 'drain');
  }
  out.end(tail);
  await once(out, 'finish');
  return i;
}
