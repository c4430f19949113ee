import busboy from 'busboy';
import type { Request, Response } from 'express';
import { fileTypeFromBuffer } from 'file-type';
import { AppError, invalid, type CaptureContentType } from '@kg/contracts';

/** What POST /captures/upload accepts, by detected MIME type, and the capture content type each becomes. */
const ACCEPTED: Record<string, CaptureContentType> = {
  'application/pdf': 'pdf',
  'image/png': 'image',
  'image/jpeg': 'image',
  'image/gif': 'image',
  'image/webp': 'image',
  'application/msword': 'article',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document': 'article',
  'text/plain': 'note',
  'text/markdown': 'note',
};

export const ACCEPTED_TYPES = Object.keys(ACCEPTED);

export interface Upload {
  filename: string;
  /** Detected from the content (magic bytes), never taken from the name or the declared type. */
  mimeType: string;
  contentType: CaptureContentType;
  bytes: Buffer;
  fields: Record<string, string>;
}

const unsupported = (detail: string) => new AppError('unsupported_media_type', detail);
const tooLarge = (max: number) =>
  new AppError('payload_too_large', `The file exceeds the upload limit of ${max} bytes (${max / 1024 / 1024} MiB)`);

/** How long an upload's body may take to arrive (docs/API.md "Uploads"). */
export interface UploadReadBounds {
  /** Seconds every upload has, whatever its pace (UPLOAD_READ_TIMEOUT_SECONDS). */
  graceSeconds: number;
  /** Each byte received earns 1/minBytesPerSecond s more (UPLOAD_READ_MIN_BYTES_PER_SECOND). */
  minBytesPerSecond: number;
}

/**
 * Milliseconds an upload's body may have taken once `received` bytes of it have arrived: the
 * grace period plus one second per `minBytesPerSecond` bytes. A body of N bytes must end within
 * grace + N / rate, and a client that slows below the rate after the grace period is cut as
 * soon as its average falls behind, so a slowloris holds its slots for about the grace period.
 */
export const uploadReadAllowanceMs = (received: number, bounds: UploadReadBounds): number =>
  bounds.graceSeconds * 1000 + (received * 1000) / bounds.minBytesPerSecond;

const timedOut = (received: number, elapsedMs: number, bounds: UploadReadBounds) =>
  new AppError(
    'request_timeout',
    `The upload did not arrive in time: ${received} bytes in ${Math.round(elapsedMs / 1000)} s. An upload has ` +
      `${bounds.graceSeconds} s plus one second per ${bounds.minBytesPerSecond} bytes sent; send it again on a faster connection`,
  );

/** Requests abandoned by their read deadline: their answer closes the connection without reading more (discardBody). */
const abandoned = new WeakSet<Request>();
/** Marks a request abandoned by its read deadline (a streamed upload of another route, http/import-upload.ts). */
export const abandonUpload = (req: Request): void => void abandoned.add(req);

const TEXT_NAME = /\.(txt|text|md|markdown)$/i;
const MARKDOWN_NAME = /\.(md|markdown)$/i;

/** A Word 97-2003 document: an OLE compound file holding a `WordDocument` stream (UTF-16LE directory name). */
const WORD_STREAM = Buffer.from('WordDocument', 'utf16le');

/**
 * The MIME type of `bytes` from their content. Text has no magic bytes: it is accepted as
 * text/plain or text/markdown only when the name or the declared type says text, and only
 * when it is valid UTF-8 without NUL. Anything else is refused (415), whatever its name.
 */
export async function detectType(bytes: Buffer, filename: string, declared: string): Promise<string> {
  if (bytes.length === 0) throw unsupported('The file is empty: there is no content to recognise');
  const found = await fileTypeFromBuffer(bytes);
  if (found) {
    if (found.mime === 'application/x-cfb' && bytes.includes(WORD_STREAM)) return 'application/msword';
    if (found.mime in ACCEPTED) return found.mime;
    throw unsupported(
      `The file's content is ${found.mime}; accepted: PDF, PNG, JPEG, GIF, WebP, DOC, DOCX, text, markdown`,
    );
  }
  const saysText = TEXT_NAME.test(filename) || /^text\/(plain|markdown|x-markdown)\b/i.test(declared);
  if (!saysText)
    throw unsupported(
      'The file type could not be recognised from its content; accepted: PDF, PNG, JPEG, GIF, WebP, DOC, DOCX, text, markdown',
    );
  if (bytes.includes(0)) throw unsupported('A text file must not contain NUL bytes');
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw unsupported('A text file must be valid UTF-8');
  }
  return MARKDOWN_NAME.test(filename) || /markdown/i.test(declared) ? 'text/markdown' : 'text/plain';
}

/**
 * Reads a multipart/form-data upload as a stream: one `file` part of at most `maxBytes`
 * (413 as soon as it is passed: the rest of the body is read and discarded, never kept),
 * plus the text fields `allowedFields`. The type is detected from the content. A body that
 * does not arrive within its read allowance (`deadline`, uploadReadAllowanceMs) is abandoned:
 * 408, nothing kept, and the answer closes the connection.
 */
export function readUpload(
  req: Request,
  opts: { maxBytes: number; allowedFields: string[]; deadline: UploadReadBounds },
): Promise<Upload> {
  const type = req.headers['content-type'] ?? '';
  if (!/^multipart\/form-data\b/i.test(type))
    return Promise.reject(unsupported('Send the upload as multipart/form-data with a `file` part'));
  const declaredLength = Number(req.headers['content-length'] ?? NaN);
  return new Promise<Upload>((resolve, reject) => {
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
    let failure: AppError | null = null;
    let deadline: NodeJS.Timeout | undefined;
    let received = 0;
    const countBytes = (chunk: Buffer) => (received += chunk.length);
    const stopClock = () => {
      clearTimeout(deadline);
      req.off('data', countBytes);
    };
    const fail = (err: AppError) => {
      if (failure) return;
      failure = err;
      stopClock();
      // Stop parsing and keep nothing; the route's error answer reads and discards what the
      // client still sends first (discardBody), so the client can read it.
      req.unpipe(bb);
      reject(err);
    };
    // A declared length far above the limit is refused before reading anything but the headers.
    if (Number.isFinite(declaredLength) && declaredLength > opts.maxBytes + 1024 * 1024) {
      fail(tooLarge(opts.maxBytes));
      return;
    }
    const fields: Record<string, string> = {};
    let file: { filename: string; declared: string; chunks: Buffer[]; size: number } | null = null;
    let pending: Promise<void> = Promise.resolve();

    bb.on('field', (name, value, info) => {
      if (!opts.allowedFields.includes(name))
        return fail(invalid('Unknown form field', [{ path: `body.${name}`, message: 'unknown field' }]));
      if (info.valueTruncated)
        return fail(invalid('A form field is too long', [{ path: `body.${name}`, message: 'too long' }]));
      // A repeated field would otherwise have its last value win silently: say so instead.
      if (Object.hasOwn(fields, name))
        return fail(invalid('A form field is given twice', [{ path: `body.${name}`, message: 'given twice' }]));
      fields[name] = value;
    });
    bb.on('file', (name, stream, info) => {
      if (name !== 'file' || file) {
        stream.resume();
        return fail(
          invalid('Send exactly one file, in the `file` part', [{ path: `body.${name}`, message: 'unexpected file' }]),
        );
      }
      const current = {
        filename: info.filename || 'upload',
        declared: info.mimeType ?? '',
        chunks: [] as Buffer[],
        size: 0,
      };
      file = current;
      stream.on('data', (chunk: Buffer) => {
        current.size += chunk.length;
        if (!failure) current.chunks.push(chunk);
      });
      stream.on('limit', () => {
        current.chunks = [];
        fail(tooLarge(opts.maxBytes));
      });
      pending = new Promise((done) => stream.on('end', done));
    });
    bb.on('filesLimit', () => fail(invalid('Send exactly one file, in the `file` part')));
    bb.on('fieldsLimit', () => fail(invalid('Too many form fields')));
    bb.on('partsLimit', () => fail(invalid('Too many form parts')));
    bb.on('error', () => fail(invalid('The multipart body is malformed')));
    bb.on('close', () => {
      void pending.then(async () => {
        if (failure) return;
        if (!file) return reject(invalid('The upload has no file', [{ path: 'body.file', message: 'required' }]));
        const bytes = Buffer.concat(file.chunks);
        try {
          const mimeType = await detectType(bytes, file.filename, file.declared);
          resolve({ filename: file.filename, mimeType, contentType: ACCEPTED[mimeType]!, bytes, fields });
        } catch (err) {
          reject(err as Error);
        }
      });
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
      abandoned.add(req);
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

/** How much of a refused request body is read and thrown away before answering (discardBody). */
export interface DiscardBounds {
  maxBytes: number;
  maxMs: number;
}

/**
 * Before an error answers a request whose body is still arriving (an upload refused by a
 * limit, too large, or malformed): reads the rest and throws it away, so a client still
 * sending can read the answer; closing with unread bytes would reset the connection
 * (ECONNRESET) before the client reads the problem. Past `maxBytes` more or `maxMs`, the
 * answer says `Connection: close` and the connection closes after it; at once for an upload
 * abandoned by its read deadline.
 */
export async function discardBody(req: Request, res: Response, bounds: DiscardBounds): Promise<void> {
  if (req.complete || req.readableEnded || req.destroyed) return;
  // An upload past its read deadline: reading more would hold the connection as long again.
  if (abandoned.has(req)) {
    res.setHeader('Connection', 'close');
    return;
  }
  const ended = await new Promise<boolean>((resolve) => {
    let seen = 0;
    const done = (value: boolean) => {
      clearTimeout(timer);
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('close', onClose);
      resolve(value);
    };
    const onData = (chunk: Buffer) => {
      seen += chunk.length;
      if (seen > bounds.maxBytes) done(false);
    };
    const onEnd = () => done(true);
    const onClose = () => done(req.complete);
    const timer = setTimeout(() => done(false), bounds.maxMs);
    req.on('data', onData);
    req.once('end', onEnd);
    req.once('close', onClose);
    req.resume();
  });
  if (!ended) res.setHeader('Connection', 'close');
}

/** Uploads in progress in this process (each holds its file in memory): at most `max` at once. */
export class UploadGate {
  private active = 0;
  constructor(readonly max: number) {}

  /** A release function, or null when `max` uploads are in progress. */
  enter(): (() => void) | null {
    if (this.active >= this.max) return null;
    this.active++;
    let left = false;
    return () => {
      if (left) return;
      left = true;
      this.active--;
    };
  }

  get inProgress(): number {
    return this.active;
  }
}
