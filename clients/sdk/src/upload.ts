import { randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import { type Capture, type KgClient } from './client.ts';
import { apiErrorFrom } from './errors.ts';

export interface UploadOptions {
  title?: string | undefined;
  why?: string | undefined;
  /** Called as the file is sent: bytes of the file sent so far and its size. */
  onProgress?: (sent: number, total: number) => void;
  signal?: AbortSignal;
}

const TYPES: Record<string, string> = {
  '.md': 'text/markdown',
  '.markdown': 'text/markdown',
  '.txt': 'text/plain',
  '.text': 'text/plain',
};

const quoted = (s: string) => s.replace(/["\\\r\n]/g, (c) => encodeURIComponent(c));

/**
 * `POST /captures/upload` with the file streamed from disk (multipart/form-data), reporting
 * progress. The server detects the type from the content; the declared type only says text.
 */
export async function uploadCapture(kg: KgClient, file: string, opts: UploadOptions = {}): Promise<Capture> {
  const { size } = await stat(file);
  const boundary = `----kg${randomBytes(12).toString('hex')}`;
  const fields: string[] = [];
  for (const [name, value] of [
    ['title', opts.title],
    ['why', opts.why],
  ] as const) {
    if (value !== undefined)
      fields.push(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`);
  }
  const name = path.basename(file);
  const type = TYPES[path.extname(name).toLowerCase()] ?? 'application/octet-stream';
  const head = Buffer.from(
    fields.join('') +
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${quoted(name)}"\r\n` +
      `Content-Type: ${type}\r\n\r\n`,
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  const length = head.length + size + tail.length;

  const body = () => {
    let sent = 0;
    async function* parts() {
      yield head;
      for await (const chunk of createReadStream(file, { highWaterMark: 256 * 1024 })) {
        sent += (chunk as Buffer).length;
        opts.onProgress?.(sent, size);
        yield chunk as Buffer;
      }
      yield tail;
    }
    return Readable.toWeb(Readable.from(parts())) as ReadableStream<Uint8Array>;
  };
  const res = await kg.session.fetch(
    () =>
      new Request(`${kg.baseUrl}/captures/upload`, {
        method: 'POST',
        headers: { 'content-type': `multipart/form-data; boundary=${boundary}`, 'content-length': String(length) },
        body: body(),
        duplex: 'half',
        ...(opts.signal ? { signal: opts.signal } : {}),
      } as RequestInit),
  );
  if (!res.ok) throw await apiErrorFrom(res);
  return (await res.json()) as Capture;
}
