import yauzl from 'yauzl';
import { permanent } from '../result';

export interface ZipLimits {
  /** Sum of the entries' inflated sizes allowed, in bytes. */
  maxInflatedBytes: number;
  maxEntries: number;
}

/**
 * Reads a zip's central directory only (nothing is inflated) and refuses the archive when its
 * entries would inflate past the limits: a zip bomb is refused before any decompression.
 */
export function checkZip(bytes: Uint8Array, limits: ZipLimits): Promise<{ entries: number; inflatedBytes: number }> {
  return new Promise((resolve, reject) => {
    yauzl.fromBuffer(Buffer.from(bytes), { lazyEntries: true, validateEntrySizes: true }, (err, zip) => {
      if (err || !zip) return reject(permanent(`not a readable zip archive: ${err?.message ?? 'no archive'}`));
      if (zip.entryCount > limits.maxEntries) {
        zip.close();
        return reject(permanent(`archive holds ${zip.entryCount} entries, more than the ${limits.maxEntries} allowed`));
      }
      let inflatedBytes = 0;
      let entries = 0;
      zip.on('entry', (entry: yauzl.Entry) => {
        entries++;
        inflatedBytes += entry.uncompressedSize;
        if (inflatedBytes > limits.maxInflatedBytes) {
          zip.close();
          return reject(
            permanent(
              `archive inflates to more than ${limits.maxInflatedBytes} bytes (a zip bomb?); refused before decompression`,
            ),
          );
        }
        zip.readEntry();
      });
      zip.on('end', () => resolve({ entries, inflatedBytes }));
      zip.on('error', (e: Error) => reject(permanent(`not a readable zip archive: ${e.message}`)));
      zip.readEntry();
    });
  });
}
