import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createKgClient } from './client.ts';
import { ApiError } from './errors.ts';
import { uploadImport } from './upload.ts';

const KEY = `key_${'0'.repeat(26)}.${'a'.repeat(43)}`;
const dir = mkdtempSync(path.join(tmpdir(), 'kg-sdk-upload-'));

/** A client whose requests go to `answer` (the request's body read whole, as a server would). */
function clientAnswering(answer: (req: Request, body: Buffer) => Response) {
  const seen: Array<{ req: Request; body: Buffer }> = [];
  const fetch = (async (req: Request) => {
    const body = Buffer.from(await req.arrayBuffer());
    seen.push({ req, body });
    return answer(req, body);
  }) as typeof globalThis.fetch;
  const kg = createKgClient({ env: { baseUrl: 'http://kg.test/api/v1', apiKey: KEY, configDir: dir }, fetch });
  return { kg, seen };
}

describe('uploadImport', () => {
  it('POSTs the file as multipart to /imports in chunks, with format, para and source before it, and the length declared', async () => {
    const file = path.join(dir, 'bookmarks.html');
    const content = Buffer.alloc(600 * 1024, 'a'); // three chunks of at most 256 KiB
    writeFileSync(file, content);
    const { kg, seen } = clientAnswering(() => Response.json({ id: 'imp_1', status: 'queued' }, { status: 202 }));
    const progress: number[] = [];
    const imp = await uploadImport(kg, file, {
      format: 'netscape-html',
      para: true,
      source: 'cli',
      onProgress: (sent, total) => {
        expect(total).toBe(content.length);
        progress.push(sent);
      },
    });
    expect(imp).toMatchObject({ id: 'imp_1', status: 'queued' });
    expect(progress.length).toBeGreaterThanOrEqual(3);
    expect(progress.at(-1)).toBe(content.length);

    const [{ req, body }] = seen as [{ req: Request; body: Buffer }];
    expect(req.method).toBe('POST');
    expect(req.url).toBe('http://kg.test/api/v1/imports');
    expect(req.headers.get('authorization')).toBe(`ApiKey ${KEY}`);
    const boundary = /^multipart\/form-data; boundary=(.+)$/.exec(req.headers.get('content-type') ?? '')![1]!;
    expect(Number(req.headers.get('content-length'))).toBe(body.length);
    const text = body.toString('latin1');
    const field = (name: string) =>
      new RegExp(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n([^\r]*)\r\n`).exec(text)?.[1];
    expect([field('format'), field('para'), field('source')]).toEqual(['netscape-html', 'true', 'cli']);
    const head = `Content-Disposition: form-data; name="file"; filename="bookmarks.html"\r\nContent-Type: text/html\r\n\r\n`;
    const start = text.indexOf(head) + head.length;
    expect(text.indexOf(head)).toBeGreaterThan(text.indexOf('name="source"'));
    expect(body.subarray(start, start + content.length).equals(content)).toBe(true);
    expect(text.slice(start + content.length)).toBe(`\r\n--${boundary}--\r\n`);
  });

  it('leaves out the fields not given, and a refusal (413) is an ApiError with the problem', async () => {
    const file = path.join(dir, 'export.csv');
    writeFileSync(file, 'title,url\n');
    const { kg, seen } = clientAnswering(
      () =>
        new Response(
          JSON.stringify({ type: 'about:blank', title: 'Payload Too Large', status: 413, detail: 'over 100 MiB' }),
          {
            status: 413,
            headers: { 'content-type': 'application/problem+json' },
          },
        ),
    );
    const err = await uploadImport(kg, file).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ status: 413, detail: 'over 100 MiB' });
    const text = seen[0]!.body.toString();
    expect(text).not.toContain('name="format"');
    expect(text).not.toContain('name="para"');
    expect(text).toContain('filename="export.csv"\r\nContent-Type: text/csv');
  });
});
