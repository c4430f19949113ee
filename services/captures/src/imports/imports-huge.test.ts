import { createReadStream } from 'node:fs';
import path from 'node:path';
import v8 from 'node:v8';
import vm from 'node:vm';
import { describe, expect, it, vi } from 'vitest';
import { generateBookmarkFile } from '@kg/bookmarks/generate';
import { useImportsHarness } from './testing';

vi.setConfig({ testTimeout: 60_000 });

/** A huge bookmark file imported in bounded memory. */
const h = useImportsHarness();
const { gateway, runner, upload } = h;

describe('a huge file', () => {
  // Storing, then reading and parsing 100 MB on a shared two-core machine takes a while.
  it(
    '100 MB streams through the runner in bounded memory; javascript: addresses are skipped and counted',
    { timeout: 300_000 },
    async () => {
      v8.setFlagsFromString('--expose-gc');
      const gc = vm.runInNewContext('gc') as () => void;
      const file = path.join(h.dir, 'huge.html');
      const count = await generateBookmarkFile(
        file,
        // 100 MB, just under the default IMPORT_MAX_BYTES (100 MiB).
        100_000_000,
        '<!DOCTYPE NETSCAPE-Bookmark-file-1>\n<DL><p>\n<DT><H3>Folder</H3>\n<DL><p>\n',
        (i) =>
          i % 20_000 === 0
            ? `<DT><A HREF="https://huge.example/${i}" ADD_DATE="1550000000">Page ${i}</A>\n`
            : `<DT><A HREF="javascript:void(${i})" ADD_DATE="1550000000">Bookmarklet ${i} &amp; more</A>\n<DD>A note ${i}\n`,
        '</DL><p>\n</DL><p>\n',
      );
      const started = await upload(createReadStream(file, { highWaterMark: 1024 * 1024 }) as AsyncIterable<Buffer>);
      expect(started.size_bytes).toBeGreaterThanOrEqual(100_000_000);
      gc();
      const base = process.memoryUsage().heapUsed;
      let peak = 0;
      const sampler = setInterval(() => {
        gc();
        peak = Math.max(peak, process.memoryUsage().heapUsed - base);
      }, 250);
      try {
        await runner({ batchSize: 100 }).drain();
      } finally {
        clearInterval(sampler);
      }
      const done = await gateway().get({ id: started.id });
      const real = Math.ceil(count / 20_000);
      expect(done.status).toBe('completed');
      expect(done.counts).toEqual({ seen: count, created: real, duplicates: 0, skipped: count - real, invalid: 0 });
      expect(done.progress.bytes_read).toBe(started.size_bytes);
      // Held whole, the file would take 100 MB or more of heap (200 MB as a JS string).
      expect(peak / 1024 / 1024).toBeLessThan(48);
    },
  );
});
