import { Transform, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createInflateRaw } from 'node:zlib';
import yauzl from 'yauzl';
import { permanent, StageError } from '../result';

export interface ZipLimits {
  /** Inflated bytes allowed for the whole archive: what the entries declare, and what they really inflate to. */
  maxInflatedBytes: number;
  maxEntries: number;
  /** Inflated bytes per compressed byte allowed for an entry once it passes RATIO_FLOOR bytes. */
  maxRatio: number;
}

/** Below this many inflated bytes an entry's ratio is not checked (a small run of spaces compresses far). */
export const RATIO_FLOOR = 1024 * 1024;
/** Compressed bytes handed to the inflater at a time, so the ratio is measured as it inflates. */
const SLICE = 16 * 1024;

const mib = (bytes: number) =>
  bytes % (1024 * 1024) === 0 ? `${bytes / (1024 * 1024)} MiB` : `${bytes.toLocaleString('en')} bytes`;

/** What a zip reader holds: entries by name, each read inflated as a stream within the limits. */
export interface BoundedZip {
  readonly entries: number;
  /** Sum of what the entries declare once inflated. */
  readonly declaredBytes: number;
  /** Bytes inflated so far by `read`. */
  readonly inflatedBytes: number;
  exists(name: string): boolean;
  /** The entry's bytes; a StageError (permanent) as soon as they pass a limit, whatever the headers say. */
  read(name: string): Promise<Buffer>;
  close(): void;
}

/**
 * Opens a zip from memory and reads its central directory only; refuses it when it holds too
 * many entries or declares more than the limit inflated. Entries are then inflated one at a
 * time as streams with a running count of bytes: an entry that inflates past what its headers
 * declare, past the archive's limit, or past the ratio cap is refused as soon as it does, so a
 * bomb whose headers lie costs at most a few kilobytes more than the limit.
 */
export function openZip(bytes: Uint8Array, limits: ZipLimits): Promise<BoundedZip> {
  return new Promise((resolve, reject) => {
    yauzl.fromBuffer(
      Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength),
      { lazyEntries: true, autoClose: false },
      (err, zip) => {
        if (err || !zip) return reject(permanent(`not a readable zip archive: ${err?.message ?? 'no archive'}`));
        if (zip.entryCount > limits.maxEntries) {
          zip.close();
          return reject(
            permanent(`archive holds ${zip.entryCount} entries, more than the ${limits.maxEntries} allowed`),
          );
        }
        const byName = new Map<string, yauzl.Entry>();
        let declaredBytes = 0;
        zip.on('entry', (entry: yauzl.Entry) => {
          declaredBytes += entry.uncompressedSize;
          if (declaredBytes > limits.maxInflatedBytes) {
            zip.close();
            return reject(
              permanent(
                `archive inflates to more than ${limits.maxInflatedBytes} bytes (a zip bomb?); refused before decompression`,
              ),
            );
          }
          if (!entry.fileName.endsWith('/')) byName.set(entry.fileName, entry);
          zip.readEntry();
        });
        zip.on('error', (e: Error) => reject(permanent(`not a readable zip archive: ${e.message}`)));
        zip.on('end', () => resolve(boundedZip(zip, byName, declaredBytes, limits)));
        zip.readEntry();
      },
    );
  });
}

function boundedZip(
  zip: yauzl.ZipFile,
  byName: Map<string, yauzl.Entry>,
  declaredBytes: number,
  limits: ZipLimits,
): BoundedZip {
  let inflatedBytes = 0;
  const rawStream = (entry: yauzl.Entry) =>
    new Promise<NodeJS.ReadableStream>((resolve, reject) =>
      // Deflated entries come raw (inflated here, counted); stored ones as they are.
      zip.openReadStream(entry, entry.compressionMethod === 8 ? { decompress: false } : {}, (err, stream) =>
        err || !stream ? reject(permanent(`not a readable zip archive: ${err?.message}`)) : resolve(stream),
      ),
    );

  async function read(name: string): Promise<Buffer> {
    const entry = byName.get(name);
    if (!entry) throw permanent(`archive has no ${name}`);
    if (entry.compressionMethod !== 0 && entry.compressionMethod !== 8)
      throw permanent(`${name} uses compression method ${entry.compressionMethod}; only stored and deflate are read`);
    let compressed = 0;
    let inflated = 0;
    const chunks: Buffer[] = [];
    // Compressed bytes in small slices, so the inflater never runs far ahead of the count.
    const slicer = new Transform({
      transform(chunk: Buffer, _enc, done: TransformCallback) {
        for (let i = 0; i < chunk.length; i += SLICE) {
          const slice = chunk.subarray(i, i + SLICE);
          compressed += slice.length;
          this.push(slice);
        }
        done();
      },
    });
    const counter = new Transform({
      transform(chunk: Buffer, _enc, done: TransformCallback) {
        inflated += chunk.length;
        inflatedBytes += chunk.length;
        if (inflated > entry.uncompressedSize)
          return done(
            permanent(
              `${name} inflates past the ${entry.uncompressedSize.toLocaleString('en')} bytes its header declares (a zip bomb?); refused`,
            ),
          );
        if (inflatedBytes > limits.maxInflatedBytes)
          return done(permanent(`archive inflates past the ${mib(limits.maxInflatedBytes)} limit; refused`));
        if (inflated > RATIO_FLOOR && inflated > limits.maxRatio * compressed)
          return done(
            permanent(`${name} inflates past the ${limits.maxRatio}:1 compression ratio limit (a zip bomb?); refused`),
          );
        chunks.push(chunk);
        done();
      },
    });
    const stages: NodeJS.ReadWriteStream[] =
      entry.compressionMethod === 8 ? [slicer, createInflateRaw(), counter] : [slicer, counter];
    try {
      await pipeline([await rawStream(entry), ...stages]);
    } catch (err) {
      if (err instanceof StageError) throw err;
      throw permanent(`not a readable zip archive: ${name}: ${(err as Error).message}`);
    }
    if (inflated !== entry.uncompressedSize)
      throw permanent(
        `not a readable zip archive: ${name} inflates to ${inflated} bytes, not the ${entry.uncompressedSize} declared`,
      );
    return Buffer.concat(chunks, inflated);
  }

  return {
    entries: byName.size,
    declaredBytes,
    get inflatedBytes() {
      return inflatedBytes;
    },
    exists: (name) => byName.has(name),
    read,
    close: () => zip.close(),
  };
}
