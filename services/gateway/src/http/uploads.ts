import type { Request, Response } from 'express';
import { fileTypeFromBuffer } from 'file-type';
import { AppError, type CaptureContentType } from '@kg/contracts';
import { readMultipart } from './multipart';
import { isAbandoned, type UploadReadBounds } from './upload-deadline';

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
 * Reads a multipart/form-data upload (readMultipart: one `file` part of at most `maxBytes`, the
 * text fields `allowedFields`, the read deadline) and detects the file's type from its content.
 */
export async function readUpload(
  req: Request,
  opts: { maxBytes: number; allowedFields: string[]; deadline: UploadReadBounds },
): Promise<Upload> {
  let bytes: Buffer = Buffer.alloc(0);
  const { file, fields } = await readMultipart(req, {
    ...opts,
    what: 'upload',
    defaultName: 'upload',
    onPart: async (_index, part) => void (bytes = part),
  });
  const mimeType = await detectType(bytes, file.filename, file.declared);
  return { filename: file.filename, mimeType, contentType: ACCEPTED[mimeType]!, bytes, fields };
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
  if (isAbandoned(req)) {
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
