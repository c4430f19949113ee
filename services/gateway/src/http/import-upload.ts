import type { Request } from 'express';
import { fileTypeFromBuffer } from 'file-type';
import { AppError } from '@kg/contracts';
import { readMultipart } from './multipart';
import type { UploadReadBounds } from './upload-deadline';

export interface StreamedUpload {
  filename: string;
  /** Bytes of the file. */
  size: number;
  /** How many parts were handed to `onPart`. */
  parts: number;
  fields: Record<string, string>;
}

const notBookmarks = (mime: string) =>
  new AppError(
    'unsupported_media_type',
    `The file's content is ${mime}, not a bookmark export (Netscape HTML, Pocket CSV or Karakeep JSON)`,
    { errors: [{ path: 'file', message: 'not a bookmark export' }] },
  );

/**
 * Reads a bookmark export of up to `maxBytes` (far more than memory should hold) from a
 * multipart/form-data body (readMultipart): the file is handed to `onPart` in parts of
 * `partBytes`, one at a time. A binary file (file-type finds a magic number: PDF, ZIP,
 * images…) is refused (415) from its first part, before anything is stored.
 */
export async function streamUpload(
  req: Request,
  opts: {
    maxBytes: number;
    partBytes: number;
    allowedFields: string[];
    deadline: UploadReadBounds;
    onPart(index: number, bytes: Buffer): Promise<void>;
  },
): Promise<StreamedUpload> {
  const { file, fields } = await readMultipart(req, {
    ...opts,
    what: 'import',
    defaultName: 'bookmarks',
    onPart: async (index, bytes) => {
      if (index === 0) {
        const found = await fileTypeFromBuffer(bytes.subarray(0, 4100));
        if (found) throw notBookmarks(found.mime);
      }
      await opts.onPart(index, bytes);
    },
  });
  return { filename: file.filename, size: file.size, parts: file.parts, fields };
}
