import { request } from 'node:http';

export interface RawAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** The body parsed as JSON, or its text when it is not JSON. */
  body: any;
}

export interface RawUploadOptions {
  /** Send the file in chunks of this many bytes with a pause between (a slow client); default: at once. */
  chunk?: number;
  pauseMs?: number;
  /** Send the head of the body only; the rest when `finish()` is called (an upload held in progress). */
  hold?: boolean;
  filename?: string;
}

/**
 * POST /captures/upload of `size` bytes of text as multipart/form-data through node:http on a
 * connection of its own (never a kept-alive one an idle timeout may close under it), so a test
 * decides how fast the body goes and when it ends, and reads whatever the server answers.
 */
export function rawUpload(apiUrl: string, auth: string, size: number, opts: RawUploadOptions = {}) {
  const boundary = 'kg-e2e-raw-upload';
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${opts.filename ?? 'notes.txt'}"\r\n` +
      'Content-Type: text/plain\r\n\r\n',
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  const url = new URL(`${apiUrl}/captures/upload`);
  const req = request({
    host: url.hostname,
    port: url.port,
    path: url.pathname,
    method: 'POST',
    agent: false,
    headers: {
      authorization: auth,
      'content-type': `multipart/form-data; boundary=${boundary}`,
      'content-length': String(head.length + size + tail.length),
    },
  });
  const answer = new Promise<RawAnswer>((resolve, reject) => {
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (d: Buffer) => chunks.push(d));
      res.on('error', reject);
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString();
        let body: unknown = text;
        try {
          body = JSON.parse(text);
        } catch {
          // not JSON
        }
        resolve({ status: res.statusCode!, headers: res.headers, body });
      });
    });
    req.on('error', reject);
  });
  req.write(head);
  let sending: Promise<void> | null = null;
  const finish = () =>
    (sending ??= (async () => {
      const chunk = opts.chunk ?? Math.max(size, 1);
      for (let sent = 0; sent < size && !req.destroyed; sent += chunk) {
        if (!req.write(Buffer.alloc(Math.min(chunk, size - sent), 'a'))) await new Promise((r) => req.once('drain', r));
        if (opts.chunk) await new Promise((r) => setTimeout(r, opts.pauseMs ?? 5));
      }
      if (!req.destroyed) req.end(tail);
    })());
  if (!opts.hold) void finish();
  return { answer, finish };
}
