import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { Capture, CaptureActivityList } from '@kg/contracts';
import { docx, docxBomb, pdf, pdfBomb } from '@kg/test-hostile-files';
import { api, conforms, newTenant, type Session } from './support/client';

/**
 * Decompression bombs through the public API (issue 21): a 1 GiB DOCX zip bomb and a 1 GiB
 * PDF FlateDecode bomb, uploaded and captured from a URL. Each capture ends `failed` naming
 * the limit it hit, the server keeps answering, and no server process grows by 400 MiB
 * (extraction runs in a sandboxed child process, never in the server's heap).
 */
const GIB = 1024 * 1024 * 1024;
const MAX_GROWTH = 400 * 1024 * 1024;

let s: Session;
let site: http.Server;
let siteUrl: string;
const served = new Map<string, { type: string; body: Buffer }>();

/** The services an upload and its extraction go through (the distributed mode's optional replicas never start here). */
const UPLOAD_PATH = ['gateway', 'captures', 'ingest-worker'];

/** The /metrics listeners of the server's processes: the embedded server's (read from its log), or each service's on the upload path. */
function metricsUrls(): string[] {
  const distributed = inject('metricsUrls') as Record<string, string> | undefined;
  if (distributed) return UPLOAD_PATH.map((name) => distributed[name]!).filter(Boolean);
  const logPath = inject('logPath');
  if (!logPath) return [];
  for (const line of readFileSync(logPath, 'utf8').split('\n')) {
    const port = /"metricsPort":(\d+)/.exec(line)?.[1];
    if (port) return [`http://127.0.0.1:${port}`];
  }
  return [];
}

async function residentBytes(url: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const value = /^process_resident_memory_bytes(?:\{[^}]*\})? (\S+)$/m.exec(text)?.[1];
  if (!value) throw new Error(`no process_resident_memory_bytes at ${url}/metrics`);
  return Number(value);
}

/** Samples every server process's RSS until stopped; returns each one's largest growth over its first sample. */
function watchMemory() {
  const urls = metricsUrls();
  const base = new Map<string, number>();
  const peak = new Map<string, number>();
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      for (const url of urls) {
        const rss = await residentBytes(url);
        if (!base.has(url)) base.set(url, rss);
        peak.set(url, Math.max(peak.get(url) ?? 0, rss));
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  })();
  return {
    urls,
    async stop(): Promise<Record<string, number>> {
      stopped = true;
      await loop;
      return Object.fromEntries(urls.map((u) => [u, peak.get(u)! - base.get(u)!]));
    },
  };
}

beforeAll(async () => {
  // The bombs first: building them keeps this process busy for a moment, and a connection
  // kept alive from an earlier request could be closed by the server meanwhile.
  served.set('/bomb.docx', {
    type: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
    body: docxBomb({ inflatedBytes: GIB, declaredBytes: 1_000 }),
  });
  served.set('/bomb.pdf', { type: 'application/pdf', body: pdfBomb({ inflatedBytes: GIB }) });
  s = await newTenant('hostile');
  // A local "web site" serving the bombs (the server under test allowlists 127.0.0.1 for fetching).
  site = http.createServer((req, res) => {
    const file = served.get(req.url ?? '');
    if (!file) return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': file.type, 'content-length': file.body.length });
    res.end(file.body);
  });
  await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
  siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
});
afterAll(() => new Promise((r) => site.close(r)));

async function upload(bytes: Buffer, filename: string): Promise<Capture> {
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(bytes)]), filename);
  const res = await fetch(`${inject('baseUrl')}/api/v1/captures/upload`, {
    method: 'POST',
    headers: { authorization: s.bearer },
    body: form,
  });
  const body = (await res.json()) as Capture;
  expect(res.status, JSON.stringify(body)).toBe(201);
  return body;
}

async function captureUrl(path: string, contentType: 'article' | 'pdf'): Promise<Capture> {
  const res = await api<Capture>('POST', '/captures', {
    auth: s.bearer,
    body: { source: 'api', url: `${siteUrl}${path}`, content_type: contentType, title: path },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

/** Polls until the capture leaves pending/processing, checking on the way that the server still answers. */
async function settled(id: string, timeoutMs = 150_000): Promise<Capture> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    expect((await api('GET', '/healthz')).status).toBe(200);
    const c = conforms(Capture, (await api('GET', `/captures/${id}`, { auth: s.bearer })).body);
    if (c.status !== 'pending' && c.status !== 'processing') return c;
    if (Date.now() > deadline) throw new Error(`capture ${id} still ${c.status}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

const markdownOf = async (id: string) =>
  (await api<string>('GET', `/captures/${id}/content?format=markdown`, { auth: s.bearer })).body;

const activity = async (id: string) =>
  conforms(CaptureActivityList, (await api('GET', `/captures/${id}/activity`, { auth: s.bearer })).body).data;

/** Runs `start`, waits for the capture to settle, and checks it failed naming a limit with no server process growing 400 MiB. */
async function expectRefused(start: () => Promise<Capture>, limit: RegExp) {
  const memory = watchMemory();
  let growth: Record<string, number>;
  let done: Capture;
  try {
    const c = await start();
    done = await settled(c.id);
  } finally {
    growth = await memory.stop();
  }
  expect(done.status, done.error ?? '').toBe('failed');
  expect(done.error).toMatch(/^extract: /);
  expect(done.error).toMatch(limit);
  const failed = (await activity(done.id)).filter((a) => a.kind === 'failed');
  expect(failed).toHaveLength(1);
  expect(failed[0]!.detail).toMatchObject({ stage: 'extract', error: expect.stringMatching(limit) });
  for (const [url, bytes] of Object.entries(growth))
    expect(bytes, `RSS growth of the process at ${url}: ${Math.round(bytes / 2 ** 20)} MiB`).toBeLessThan(MAX_GROWTH);
  // The server still works for everyone: an ordinary document goes through.
  const ok = await upload(docx({ heading: 'Still here', paragraphs: ['An ordinary document.'] }), 'ok.docx');
  const processed = await settled(ok.id);
  expect(processed.status, processed.error ?? '').toBe('processed');
  expect(await markdownOf(ok.id)).toContain('An ordinary document.');
}

// The DOCX's document.xml declares 1,000 bytes and inflates to 1 GiB: refused by the running
// count of inflated bytes (its declared size, the ratio cap or the archive limit, whichever first).
const DOCX_LIMIT = /limit|declares/;
// The PDF's content stream inflates to 1 GiB inside the PDF parser: the sandbox's memory,
// time or output limit ends it.
const PDF_LIMIT = /(memory|time|output) exceeds the .* limit/;

describe('decompression bombs (1 GiB inflated) end failed naming the limit; the server stays up', () => {
  it('a DOCX zip bomb uploaded', async () => {
    await expectRefused(() => upload(served.get('/bomb.docx')!.body, 'bomb.docx'), DOCX_LIMIT);
  }, 240_000);

  it('a PDF FlateDecode bomb uploaded', async () => {
    await expectRefused(() => upload(served.get('/bomb.pdf')!.body, 'bomb.pdf'), PDF_LIMIT);
  }, 240_000);

  it('a DOCX zip bomb captured from a URL', async () => {
    await expectRefused(() => captureUrl('/bomb.docx', 'article'), DOCX_LIMIT);
  }, 240_000);

  it('a PDF FlateDecode bomb captured from a URL', async () => {
    await expectRefused(() => captureUrl('/bomb.pdf', 'pdf'), PDF_LIMIT);
  }, 240_000);

  it('an honest PDF still goes through', async () => {
    const c = await upload(pdf({ lines: ['A page of plain text.'] }), 'plain.pdf');
    const done = await settled(c.id);
    expect(done.status, done.error ?? '').toBe('processed');
    expect(await markdownOf(c.id)).toContain('A page of plain text.');
  }, 120_000);
});
