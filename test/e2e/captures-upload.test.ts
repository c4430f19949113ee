import { beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { Capture } from '@kg/contracts';
import { api, conforms, expectProblem, newTenant, type ProblemBody, type Session } from './support/client';
import { docx, elf, gif, jpeg, noise, pdf, png, webp } from './support/capture-files';
import { rawUpload } from './support/raw-upload';

let s: Session;
let other: Session;
beforeAll(async () => {
  [s, other] = await Promise.all([newTenant('uploads'), newTenant('uploads-other')]);
});

const MAX = 25 * 1024 * 1024;

/** POST /captures/upload with a real multipart body (fetch's FormData). */
async function upload(
  auth: string | undefined,
  file: { name: string; bytes: Buffer; type?: string } | null,
  fields: Record<string, string> = {},
) {
  const form = new FormData();
  if (file) form.append('file', new Blob([new Uint8Array(file.bytes)], { type: file.type ?? '' }), file.name);
  for (const [k, v] of Object.entries(fields)) form.append(k, v);
  const res = await fetch(`${inject('baseUrl')}/api/v1/captures/upload`, {
    method: 'POST',
    headers: auth ? { authorization: auth } : {},
    body: form,
  });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON
  }
  return { status: res.status, headers: res.headers, body: body as any };
}

async function content(auth: string, id: string) {
  const res = await fetch(`${inject('baseUrl')}/api/v1/captures/${id}/content`, { headers: { authorization: auth } });
  return { status: res.status, type: res.headers.get('content-type'), bytes: Buffer.from(await res.arrayBuffer()) };
}

describe('POST /captures/upload: accepted types, detected from the content', () => {
  const cases: Array<[string, string, Buffer, string, string]> = [
    ['PDF', 'paper.pdf', pdf('Hello from a PDF'), 'application/pdf', 'pdf'],
    ['PNG', 'diagram.png', png(), 'image/png', 'image'],
    ['JPEG', 'photo.jpg', jpeg(), 'image/jpeg', 'image'],
    ['GIF', 'anim.gif', gif(), 'image/gif', 'image'],
    ['WebP', 'pic.webp', webp(), 'image/webp', 'image'],
    [
      'DOCX',
      'report.docx',
      docx('Hello from Word'),
      'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
      'article',
    ],
    ['text', 'notes.txt', Buffer.from('Plain notes, déjà vu.\n'), 'text/plain', 'note'],
    ['markdown', 'readme.md', Buffer.from('# Title\n\nSome *markdown*.\n'), 'text/markdown', 'note'],
  ];
  for (const [label, name, bytes, mime, kind] of cases) {
    it(`${label}: 201 pending, the file kept byte for byte with its detected type`, async () => {
      const res = await upload(s.bearer, { name, bytes, type: 'application/octet-stream' });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      const c = conforms(Capture, res.body);
      expect(c).toMatchObject({ title: name, content_type: kind, source: 'api' });
      expect(['pending', 'processing', 'processed', 'failed']).toContain(c.status);
      expect(c.metadata).toMatchObject({ filename: name, mime_type: mime, size_bytes: bytes.length });
      const got = await content(s.bearer, c.id);
      expect(got.status).toBe(200);
      expect(got.type).toBe(mime);
      expect(got.bytes.equals(bytes)).toBe(true);
      expect((await content(other.bearer, c.id)).status).toBe(404);
    });
  }

  it('title and why fields override; unknown fields and NUL answer 400', async () => {
    const res = await upload(
      s.bearer,
      { name: 'a.png', bytes: png() },
      { title: '  My diagram ', why: 'for the talk' },
    );
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ title: 'My diagram', why: 'for the talk' });
    const unknown = expectProblem(await upload(s.bearer, { name: 'a.png', bytes: png() }, { colour: 'red' }), 400);
    expect(unknown.errors?.[0]?.path).toContain('colour');
    const nul = expectProblem(await upload(s.bearer, { name: 'a.png', bytes: png() }, { why: 'a\u0000b' }), 400);
    expect(JSON.stringify(nul.errors)).toContain('why');
  });

  it('a form part with no name answers 400 with an error whose path is "", as the contract says', async () => {
    const boundary = 'kg-e2e-nameless';
    for (const part of ['Content-Disposition: form-data', 'Content-Disposition: form-data; filename="a.txt"']) {
      const res = await fetch(`${inject('baseUrl')}/api/v1/captures/upload`, {
        method: 'POST',
        headers: { authorization: s.bearer, 'content-type': `multipart/form-data; boundary=${boundary}` },
        body: `--${boundary}\r\n${part}\r\n\r\nhello\r\n--${boundary}--\r\n`,
      });
      const problem = expectProblem({ status: res.status, headers: res.headers, body: await res.json() }, 400);
      expect(problem.errors).toEqual([{ path: '', message: expect.stringMatching(/no name/) }]);
    }
  });
});

describe('POST /captures/upload: refusals', () => {
  const refused = async (res: Awaited<ReturnType<typeof upload>>, status: number): Promise<ProblemBody> => {
    const p = expectProblem(res, status);
    expect(p.detail.length).toBeGreaterThan(0);
    return p;
  };

  it('an executable renamed .txt answers 415', async () => {
    const p = await refused(await upload(s.bearer, { name: 'notes.txt', bytes: elf(), type: 'text/plain' }), 415);
    expect(p.detail).toContain('x-elf');
  });

  it('random bytes named .png answer 415', async () => {
    await refused(await upload(s.bearer, { name: 'image.png', bytes: noise(4096), type: 'image/png' }), 415);
  });

  it('text that is not UTF-8, or holds NUL, answers 415 even named .md', async () => {
    await refused(await upload(s.bearer, { name: 'a.md', bytes: Buffer.from([0x48, 0xff, 0xfe, 0x49]) }), 415);
    await refused(await upload(s.bearer, { name: 'a.md', bytes: Buffer.from('a\u0000b') }), 415);
  });

  it('25 MiB is accepted; 25 MiB + 1 byte answers 413', async () => {
    const big = Buffer.alloc(MAX, 'a');
    const ok = await upload(s.bearer, { name: 'big.txt', bytes: big });
    expect(ok.status, JSON.stringify(ok.body)).toBe(201);
    expect(ok.body.metadata.size_bytes).toBe(MAX);
    // On a connection of its own: a kept-alive one may be closed by its idle timeout as the next
    // request starts (the race every HTTP/1.1 client has), which is not what this test is about.
    const over = await rawUpload(`${inject('baseUrl')}/api/v1`, s.bearer, MAX + 1, { filename: 'big.txt' }).answer;
    expect(over.status, JSON.stringify(over.body)).toBe(413);
    expect(over.headers['content-type']).toContain('application/problem+json');
    expect(over.body).toMatchObject({ status: 413, detail: expect.stringContaining('upload limit') });
    // Accepted, but more text than a capture keeps: the pipeline fails it once, naming the limit
    // (it used to be refused at completion and re-queued for ever). It waits behind the captures
    // the tests above uploaded: on a cluster sharing 2 cores with other suites, over a minute,
    // and when a pod restarted meanwhile (a startup probe on a busy node) its run waits for the
    // worker's sweep (INGEST_SWEEP_AFTER_MS) to be queued again: minutes.
    let capture = conforms(Capture, ok.body);
    for (const deadline = Date.now() + 280_000; capture.status !== 'failed' && Date.now() < deadline;) {
      await new Promise((r) => setTimeout(r, 250));
      capture = conforms(Capture, (await api('GET', `/captures/${capture.id}`, { auth: s.bearer })).body);
    }
    expect(capture).toMatchObject({
      status: 'failed',
      error: 'extract: the extracted text has 26,214,400 characters; a capture keeps at most 10,000,000',
    });
  }, 330_000);

  it('25 MiB + 1 byte sent slowly still reads its 413 problem (the server reads the rest before answering)', async () => {
    const over = await rawUpload(`${inject('baseUrl')}/api/v1`, other.bearer, MAX + 1, {
      chunk: 1024 * 1024,
      pauseMs: 20,
    }).answer;
    expect(over.status, JSON.stringify(over.body)).toBe(413);
    expect(over.body).toMatchObject({ status: 413, type: 'https://kg.dev/problems/payload-too-large' });
  }, 120_000);

  it('a chunked upload without Content-Length is cut at the limit while streaming: 413', async () => {
    const boundary = 'kg-e2e-chunked';
    const head = Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.txt"\r\n\r\n`,
    );
    const chunk = Buffer.alloc(1024 * 1024, 'a');
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent === 0) controller.enqueue(head);
        if (sent < 40) controller.enqueue(chunk);
        else {
          controller.enqueue(Buffer.from(`\r\n--${boundary}--\r\n`));
          controller.close();
        }
        sent++;
      },
    });
    const res = await fetch(`${inject('baseUrl')}/api/v1/captures/upload`, {
      method: 'POST',
      headers: { authorization: s.bearer, 'content-type': `multipart/form-data; boundary=${boundary}` },
      body,
      duplex: 'half',
    } as RequestInit);
    expect(res.status).toBe(413);
    expect(res.headers.get('content-type')).toMatch(/problem\+json/);
  }, 120_000);

  it('no file (400), an empty file (415), JSON instead of multipart (415), and no credentials (401) are refused', async () => {
    await refused(await upload(s.bearer, null, { title: 'x' }), 400);
    await refused(await upload(s.bearer, { name: 'e.txt', bytes: Buffer.alloc(0) }), 415);
    expectProblem(await api('POST', '/captures/upload', { auth: s.bearer, body: { file: 'x' } }), 415);
    expectProblem(await upload(undefined, { name: 'a.png', bytes: png() }), 401);
  });
});
