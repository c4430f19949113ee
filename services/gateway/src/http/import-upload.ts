import busboy from 'busboy';
import type { Request } from 'express';
import { fileTypeFromBuffer } from 'file-type';
import { AppError, invalid } from '@kg/contracts';
import { abandonUpload, uploadReadAllowanceMs, type UploadReadBounds } from './uploads';

export interface StreamedUpload {
  filename: string;
  /** Bytes of the file. */
  size: number;
  /** How many parts were handed to `onPart`. */
  parts: number;
  fields: Record<string, string>;
}

const tooLarge = (max: number) =>
  new AppError('payload_too_large', `The file exceeds the import limit of ${max} bytes (${max / 1024 / 1024} MiB)`);
const notBookmarks = (mime: string) =>
  invalid(`The file's content is ${mime}, not a bookmark export (Netscape HTML, Pocket CSV or Karakeep JSON)`, [
    { path: 'file', message: 'not a bookmark export' },
  ]);

/**
 * Reads a multipart/form-data upload whose `file` part may be far larger than memory should
 * hold (a bookmark export of up to `maxBytes`): the file is cut into parts of `partBytes` handed
 * one at a time to `onPart`, the body paused meanwhile, so at most one part is held. 413 as soon
 * as `maxBytes` is passed; a binary file (file-type finds a magic number: PDF, ZIP, images…) is
 * refused (400) from its first part. The read deadline and the text fields work as readUpload's.
 */
export function streamUpload(
  req: Request,
  opts: {
    maxBytes: number;
    partBytes: number;
    allowedFields: string[];
    deadline: UploadReadBounds;
    onPart(index: number, bytes: Buffer): Promise<void>;
  },
): Promise<StreamedUpload> {
  const type = req.headers['content-type'] ?? '';
  if (!/^multipart\/form-data\b/i.test(type))
    return Promise.reject(
      new AppError('unsupported_media_type', 'Send the import as multipart/form-data with a `file` part'),
    );
  const declaredLength = Number(req.headers['content-length'] ?? NaN);
  return new Promise<StreamedUpload>((resolve, reject) => {
    let bb: busboy.Busboy;
    try {
      bb = busboy({
        headers: req.headers,
        limits: { fileSize: opts.maxBytes + 1, files: 1, fields: 10, fieldSize: 64 * 1024, parts: 12 },
      });
    } catch {
      reject(invalid('The multipart body is malformed (a boundary is required)'));
      return;
    }
    let failure: Error | null = null;
    let deadline: NodeJS.Timeout | undefined;
    let received = 0;
    const countBytes = (chunk: Buffer) => (received += chunk.length);
    const stopClock = () => {
      clearTimeout(deadline);
      req.off('data', countBytes);
    };
    /** The part being stored, if any: a failure is answered once it has settled, so no part is stored after. */
    let storing: Promise<void> = Promise.resolve();
    const fail = (err: Error) => {
      if (failure) return;
      failure = err;
      stopClock();
      req.unpipe(bb);
      void storing.catch(() => undefined).then(() => reject(err));
    };
    if (Number.isFinite(declaredLength) && declaredLength > opts.maxBytes + 1024 * 1024) {
      fail(tooLarge(opts.maxBytes));
      return;
    }
    const fields: Record<string, string> = {};
    let file: { filename: string; size: number; parts: number } | null = null;
    let pending: Promise<void> = Promise.resolve();

    bb.on('field', (name, value, info) => {
      if (!opts.allowedFields.includes(name))
        return fail(invalid('Unknown form field', [{ path: name, message: 'unknown field' }]));
      if (info.valueTruncated) return fail(invalid('A form field is too long', [{ path: name, message: 'too long' }]));
      if (Object.hasOwn(fields, name))
        return fail(invalid('A form field is given twice', [{ path: name, message: 'given twice' }]));
      fields[name] = value;
    });
    bb.on('file', (name, stream, info) => {
      if (name !== 'file' || file) {
        stream.resume();
        return fail(invalid('Send exactly one file, in the `file` part', [{ path: name, message: 'unexpected file' }]));
      }
      const current = { filename: info.filename || 'bookmarks', size: 0, parts: 0 };
      file = current;
      let chunks: Buffer[] = [];
      let buffered = 0;
      /** Hands the buffered bytes over as the next part, the stream paused until it is stored. */
      const handOver = async (bytes: Buffer) => {
        if (current.parts === 0) {
          const found = await fileTypeFromBuffer(bytes.subarray(0, 4100));
          if (found) throw notBookmarks(found.mime);
        }
        await opts.onPart(current.parts, bytes);
        current.parts++;
      };
      stream.on('data', (chunk: Buffer) => {
        current.size += chunk.length;
        if (failure) return;
        chunks.push(chunk);
        buffered += chunk.length;
        while (buffered >= opts.partBytes) {
          const all = Buffer.concat(chunks);
          const part = all.subarray(0, opts.partBytes);
          chunks = [all.subarray(opts.partBytes)];
          buffered = all.length - opts.partBytes;
          stream.pause();
          storing = storing.then(() => handOver(Buffer.from(part)));
          storing.then(
            () => {
              if (!failure) stream.resume();
            },
            (err: Error) => fail(err),
          );
        }
      });
      stream.on('limit', () => {
        chunks = [];
        fail(tooLarge(opts.maxBytes));
      });
      pending = new Promise<void>((done) => stream.on('end', done)).then(async () => {
        await storing;
        if (!failure && buffered > 0) await handOver(Buffer.concat(chunks));
        chunks = [];
      });
      // The last part may be refused (a binary file) or fail to store before busboy's 'close'
      // (or with the body unpiped, never): a rejection nobody handles yet would end the process.
      pending.catch((err: Error) => fail(err));
    });
    bb.on('filesLimit', () => fail(invalid('Send exactly one file, in the `file` part')));
    bb.on('fieldsLimit', () => fail(invalid('Too many form fields')));
    bb.on('partsLimit', () => fail(invalid('Too many form parts')));
    bb.on('error', () => fail(invalid('The multipart body is malformed')));
    bb.on('close', () => {
      pending.then(
        () => {
          if (failure) return;
          stopClock();
          if (!file) return reject(invalid('The upload has no file', [{ path: 'file', message: 'required' }]));
          resolve({ filename: file.filename, size: file.size, parts: file.parts, fields });
        },
        (err: Error) => fail(err),
      );
    });
    const started = Date.now();
    const check = () => {
      const elapsed = Date.now() - started;
      const allowed = uploadReadAllowanceMs(received, opts.deadline);
      if (elapsed < allowed) {
        deadline = setTimeout(check, allowed - elapsed);
        return;
      }
      abandonUpload(req);
      fail(
        new AppError(
          'request_timeout',
          `The upload did not arrive in time: ${received} bytes in ${Math.round(elapsed / 1000)} s; send it again on a faster connection`,
        ),
      );
    };
    deadline = setTimeout(check, uploadReadAllowanceMs(0, opts.deadline));
    req.on('data', countBytes);
    req.once('end', stopClock);
    req.on('aborted', () => fail(invalid('The upload was interrupted')));
    req.on('close', () => {
      if (!req.complete) fail(invalid('The upload was interrupted'));
    });
    req.pipe(bb);
  });
}
