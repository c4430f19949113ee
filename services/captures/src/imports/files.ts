import { checkKey, type BlobStore } from '@kg/blobs';

/** Where part `n` of an import's file is kept: `<tenant>/imports/<import>/<n>`. */
export const partKey = (tenantId: string, importId: string, part: number): string =>
  checkKey(`${tenantId}/imports/${importId}/${part}`);

/** The stored file is gone (deleted behind the service's back, or the store lost it): the import fails. */
export class ImportFileMissing extends Error {}

/** The blob store failed to answer: the import is resumed later, not failed. */
export class StorageUnavailable extends Error {}

/** Slices handed to the parser: small enough for a fine progress, large enough to be cheap. */
const SLICE = 64 * 1024;

/**
 * The file's bytes, part after part, in 64 KiB slices: one part (at most 4 MiB) is held at a
 * time, whatever the file's size. `onBytes` hears how many bytes were handed out so far.
 */
export async function* readParts(
  blobs: BlobStore,
  tenantId: string,
  importId: string,
  parts: number,
  onBytes: (read: number) => void,
): AsyncGenerator<Buffer> {
  let read = 0;
  for (let n = 0; n < parts; n++) {
    const bytes = await blobs.get(partKey(tenantId, importId, n)).catch((err: unknown) => {
      throw new StorageUnavailable(`the blob store did not answer for part ${n}`, { cause: err });
    });
    if (!bytes) throw new ImportFileMissing(`part ${n} of the uploaded file is missing from storage`);
    for (let at = 0; at < bytes.length; at += SLICE) {
      const slice = bytes.subarray(at, at + SLICE);
      read += slice.length;
      onBytes(read);
      yield slice;
    }
  }
}

/** Removes the file's parts (a finished, cancelled or abandoned import); a missing part is not an error. */
export async function deleteParts(blobs: BlobStore, tenantId: string, importId: string, parts: number): Promise<void> {
  for (let n = 0; n < parts; n++) await blobs.delete(partKey(tenantId, importId, n));
}
