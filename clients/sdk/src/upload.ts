import { randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import { type Capture, type KgClient, type Schemas } from './client.ts';
import { apiErrorFrom } from './errors.ts';

export interface UploadProgress {
  /** Called as the file is sent: bytes of the file sent so far and its size. */
  onProgress?: (sent: number, total: number) => void;
  signal?: AbortSignal;
}

export interface UploadOptions extends UploadProgress {
  title?: string | undefined;
  why?: string | undefined;
}

export type Import = Schemas['Import'];

export interface ImportUploadOptions extends UploadProgress {
  /** The file's format; the server detects it from the content when omitted. */
  format?: Schemas['ImportFormat'] | undefined;
  /** Folders also become PARA items. */
  para?: boolean | undefined;
  /** Recorded on each capture the import makes (default `api`). */
  source?: Import['source'] | undefined;
}

const TYPES: Record<string, string> = {
  '.md': 'text/markdown',
  '.markdown': 'text/markdown',
  '.txt': 'text/plain',
  '.text': 'text/plain',
  '.html': 'text/html',
  '.htm': 'text/html',
  '.csv': 'text/csv',
  '.json': 'application/json',
};

const quoted = (s: string) => s.replace(/["\\\r\n]/g, (c) => encodeURIComponent(c));

/**
 * POSTs a file from disk as multipart/form-data, streamed (never read whole into memory), with
 * the text `fields` before it, reporting progress; answers the JSON body or throws the problem.
 */
async function postFile<T>(
  kg: KgClient,
  route: string,
  file: string,
  fields: Array<[string, string | undefined]>,
  opts: UploadProgress,
): Promise<T> {
  const { size } = await stat(file);
  const boundary = `----kg${randomBytes(12).toString('hex')}`;
  const parts: string[] = [];
  for (const [name, value] of fields) {
    if (value !== undefined)
      parts.push(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`);
  }
  const name = path.basename(file);
  const type = TYPES[path.extname(name).toLowerCase()] ?? 'application/octet-stream';
  const head = Buffer.from(
    parts.join('') +
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${quoted(name)}"\r\n` +
      `Content-Type: ${type}\r\n\r\n`,
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  const length = head.length + size + tail.length;

  const body = () => {
    let sent = 0;
    async function* chunks() {
      yield head;
      for await (const chunk of createReadStream(file, { highWaterMark: 256 * 1024 })) {
        sent += (chunk as Buffer).length;
        opts.onProgress?.(sent, size);
        yield chunk as Buffer;
      }
      yield tail;
    }
    return Readable.toWeb(Readable.from(chunks())) as ReadableStream<Uint8Array>;
  };
  const res = await kg.session.fetch(
    () =>
      new Request(`${kg.baseUrl}${route}`, {
        method: 'POST',
        headers: { 'content-type': `multipart/form-data; boundary=${boundary}`, 'content-length': String(length) },
        body: body(),
        duplex: 'half',
        ...(opts.signal ? { signal: opts.signal } : {}),
      } as RequestInit),
  );
  if (!res.ok) throw await apiErrorFrom(res);
  return (await res.json()) as T;
}

/**
 * `POST /captures/upload` with the file streamed from disk (multipart/form-data), reporting
 * progress. The server detects the type from the content; the declared type only says text.
 */
export async function uploadCapture(kg: KgClient, file: string, opts: UploadOptions = {}): Promise<Capture> {
  return postFile<Capture>(
    kg,
    '/captures/upload',
    file,
    [
      ['title', opts.title],
      ['why', opts.why],
    ],
    opts,
  );
}

/**
 * `POST /imports`: a bookmark export streamed from disk (multipart/form-data), reporting upload
 * progress; answers the queued Import (202), which the server then reads in the background.
 */
export async function uploadImport(kg: KgClient, file: string, opts: ImportUploadOptions = {}): Promise<Import> {
  return postFile<Import>(
    kg,
    '/imports',
    file,
    [
      ['format', opts.format],
      ['para', opts.para === undefined ? undefined : String(opts.para)],
      ['source', opts.source],
    ],
    opts,
  );
}
