import busboy from 'busboy';
import type { Request } from 'express';
import { AppError, invalid } from '@kg/contracts';
import { abandonUpload, uploadReadAllowanceMs, type UploadReadBounds } from './upload-deadline';

/** The `file` part as it arrived (its bytes went to `onPart`). */
export interface MultipartFile {
  /** As the client named it, or `defaultName`. */
  filename: string;
  /** The type the client declared for it (never trusted: content is detected by the caller). */
  declared: string;
  size: number;
  /** How many parts were handed to `onPart`. */
  parts: number;
}

export interface MultipartOptions {
  /** What the body is, in the answers: "Send the upload as…", "exceeds the import limit…". */
  what: 'upload' | 'import';
  maxBytes: number;
  /** The text fields the route takes besides `file` (any other is 400). */
  allowedFields: string[];
  deadline: UploadReadBounds;
  /** The file's name when the client gives none. */
  defaultName: string;
  /**
   * Bytes per part handed to `onPart`, the body paused until each is taken; without it the
   * file comes in one part at its end (a route that holds it in memory anyway).
   */
  partBytes?: number;
  /** Takes the next part of the file (in order, one at a time); a rejection fails the upload with its error. */
  onPart(index: number, bytes: Buffer): Promise<void>;
}

const tooLarge = (what: string, max: number) =>
  new AppError('payload_too_large', `The file exceeds the ${what} limit of ${max} bytes (${max / 1024 / 1024} MiB)`);

const timedOut = (received: number, elapsedMs: number, bounds: UploadReadBounds) =>
  new AppError(
    'request_timeout',
    `The upload did not arrive in time: ${received} bytes in ${Math.round(elapsedMs / 1000)} s. An upload has ` +
      `${bounds.graceSeconds} s plus one second per ${bounds.minBytesPerSecond} bytes sent; send it again on a faster connection`,
  );

/**
 * Reads a multipart/form-data body as a stream: one `file` part of at most `maxBytes`, handed
 * to `onPart` in parts of `partBytes` (so a route need not hold it), plus the text fields
 * `allowedFields`, each at most 64 KiB and given once. 413 as soon as `maxBytes` is passed (and
 * before reading anything when the declared length is far above it); a body that does not
 * arrive within its read allowance (uploadReadAllowanceMs) is abandoned with 408; a
 * malformed, interrupted or surprising body is 400. After a failure no part is handed over,
 * and the answer waits for the part being taken, so nothing is stored after it.
 */
/** A form part without a name (`Content-Disposition: form-data`, or `name=""`): busboy hands it as undefined. */
const nameless = () =>
  invalid('A form part has no name', [
    { path: '', message: 'a part with no name (Content-Disposition: form-data; name="…")' },
  ]);

export function readMultipart(
  req: Request,
  opts: MultipartOptions,
): Promise<{ file: MultipartFile; fields: Record<string, string> }> {
  const type = req.headers['content-type'] ?? '';
  if (!/^multipart\/form-data\b/i.test(type))
    return Promise.reject(
      new AppError('unsupported_media_type', `Send the ${opts.what} as multipart/form-data with a \`file\` part`),
    );
  const declaredLength = Number(req.headers['content-length'] ?? NaN);
  const partBytes = opts.partBytes ?? Infinity;
  return new Promise((resolve, reject) => {
    let bb: busboy.Busboy;
    try {
      bb = busboy({
        headers: req.headers,
        // busboy signals `limit` on reaching fileSize: one byte past the maximum is the first refused.
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
    /** The part being taken, if any: a failure is answered once it has settled. */
    let taking: Promise<void> = Promise.resolve();
    const fail = (err: Error) => {
      if (failure) return;
      failure = err;
      stopClock();
      // Stop parsing and keep nothing; the route's error answer reads and discards what the
      // client still sends first (discardBody), so the client can read it.
      req.unpipe(bb);
      void taking.catch(() => undefined).then(() => reject(err));
    };
    if (Number.isFinite(declaredLength) && declaredLength > opts.maxBytes + 1024 * 1024) {
      fail(tooLarge(opts.what, opts.maxBytes));
      return;
    }
    const fields: Record<string, string> = {};
    let file: MultipartFile | null = null;
    let ended: Promise<void> = Promise.resolve();

    bb.on('field', (name: string | undefined, value, info) => {
      if (!name) return fail(nameless());
      if (!opts.allowedFields.includes(name))
        return fail(invalid('Unknown form field', [{ path: name, message: 'unknown field' }]));
      if (info.valueTruncated) return fail(invalid('A form field is too long', [{ path: name, message: 'too long' }]));
      // A repeated field would otherwise have its last value win silently: say so instead.
      if (Object.hasOwn(fields, name))
        return fail(invalid('A form field is given twice', [{ path: name, message: 'given twice' }]));
      fields[name] = value;
    });
    bb.on('file', (name: string | undefined, stream, info) => {
      if (!name) {
        stream.resume();
        return fail(nameless());
      }
      if (name !== 'file' || file) {
        stream.resume();
        return fail(invalid('Send exactly one file, in the `file` part', [{ path: name, message: 'unexpected file' }]));
      }
      const current: MultipartFile = {
        filename: info.filename || opts.defaultName,
        declared: info.mimeType ?? '',
        size: 0,
        parts: 0,
      };
      file = current;
      let chunks: Buffer[] = [];
      let buffered = 0;
      const handOver = async (bytes: Buffer) => {
        await opts.onPart(current.parts, bytes);
        current.parts++;
      };
      stream.on('data', (chunk: Buffer) => {
        current.size += chunk.length;
        if (failure) return;
        chunks.push(chunk);
        buffered += chunk.length;
        while (buffered >= partBytes) {
          const all = Buffer.concat(chunks);
          const part = Buffer.from(all.subarray(0, partBytes));
          chunks = [all.subarray(partBytes)];
          buffered = all.length - partBytes;
          stream.pause();
          taking = taking.then(() => handOver(part));
          taking.then(
            () => {
              if (!failure) stream.resume();
            },
            (err: Error) => fail(err),
          );
        }
      });
      stream.on('limit', () => {
        chunks = [];
        fail(tooLarge(opts.what, opts.maxBytes));
      });
      ended = new Promise<void>((done) => stream.on('end', done)).then(async () => {
        await taking;
        if (!failure && buffered > 0) {
          const rest = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
          chunks = [];
          await handOver(rest);
        }
      });
      // The last part may be refused or fail before busboy's 'close' (or, with the body
      // unpiped, never comes): a rejection nobody handles yet would end the process.
      ended.catch((err: Error) => fail(err));
    });
    bb.on('filesLimit', () => fail(invalid('Send exactly one file, in the `file` part')));
    bb.on('fieldsLimit', () => fail(invalid('Too many form fields')));
    bb.on('partsLimit', () => fail(invalid('Too many form parts')));
    bb.on('error', () => fail(invalid('The multipart body is malformed')));
    bb.on('close', () => {
      ended.then(
        () => {
          if (failure) return;
          stopClock();
          if (!file) return reject(invalid('The upload has no file', [{ path: 'file', message: 'required' }]));
          resolve({ file, fields });
        },
        (err: Error) => fail(err),
      );
    });
    // The read deadline: checked when the allowance of the bytes received so far runs out,
    // and armed again for the new allowance while the body keeps its pace.
    const started = Date.now();
    const check = () => {
      const elapsed = Date.now() - started;
      const allowed = uploadReadAllowanceMs(received, opts.deadline);
      if (elapsed < allowed) {
        deadline = setTimeout(check, allowed - elapsed);
        return;
      }
      abandonUpload(req);
      fail(timedOut(received, elapsed, opts.deadline));
    };
    deadline = setTimeout(check, uploadReadAllowanceMs(0, opts.deadline));
    req.on('data', countBytes);
    req.once('end', stopClock);
    req.on('aborted', () => fail(invalid('The upload was interrupted')));
    // A connection closed before the body ended (the client went away, the server's request
    // timeout): the upload fails, so its slots are released at once.
    req.on('close', () => {
      if (!req.complete) fail(invalid('The upload was interrupted'));
    });
    req.pipe(bb);
  });
}
