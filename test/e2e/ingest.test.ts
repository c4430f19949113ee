import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { crc32, deflateRawSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { Capture, CaptureActivityList, CaptureProvenance, Node } from '@kg/contracts';
import { api, conforms, newTenant, type Session } from './support/client';
import { docx, pdf, png } from './support/capture-files';

/**
 * The ingest pipeline end to end through the public API: captures become nodes, with
 * provenance and activity, in whatever mode the suite runs (embedded or distributed).
 */
let s: Session;
let page: http.Server;
let pageUrl: string;
beforeAll(async () => {
  s = await newTenant('ingest');
  // A local "web site": the server under test allowlists 127.0.0.1 for fetching (FETCH_ALLOWLIST).
  page = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(
      '<!doctype html><html><head><title>Mycelium networks</title></head><body><nav>Home</nav><article><h1>Mycelium networks</h1>' +
        '<p>Fungal mycelium connects the roots of trees in a forest and moves water and nutrients between them.</p>' +
        '<p>Older trees feed seedlings through the network, which researchers call the wood wide web.</p></article>' +
        '<footer>Cookie banner</footer></body></html>',
    );
  });
  await new Promise<void>((r) => page.listen(0, '127.0.0.1', r));
  pageUrl = `http://127.0.0.1:${(page.address() as AddressInfo).port}/mycelium`;
});
afterAll(() => new Promise((r) => page.close(r)));

async function create(body: Record<string, unknown>): Promise<Capture> {
  const res = await api<Capture>('POST', '/captures', { auth: s.bearer, body: { source: 'api', ...body } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

/** Polls until the capture leaves pending/processing. */
async function settled(id: string, timeoutMs = 30_000): Promise<Capture> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const c = conforms(Capture, (await api('GET', `/captures/${id}`, { auth: s.bearer })).body);
    if (c.status !== 'pending' && c.status !== 'processing') return c;
    if (Date.now() > deadline) throw new Error(`capture ${id} still ${c.status}`);
    await new Promise((r) => setTimeout(r, 150));
  }
}

async function upload(bytes: Buffer, filename: string): Promise<Capture> {
  const form = new FormData();
  form.append('file', new Blob([bytes]), filename);
  const res = await fetch(`${inject('baseUrl')}/api/v1/captures/upload`, {
    method: 'POST',
    headers: { authorization: s.bearer },
    body: form,
  });
  const body = (await res.json()) as Capture;
  expect(res.status, JSON.stringify(body)).toBe(201);
  return body;
}

const provenance = async (id: string) =>
  conforms(CaptureProvenance, (await api('GET', `/captures/${id}/provenance`, { auth: s.bearer })).body);
const activity = async (id: string) =>
  conforms(CaptureActivityList, (await api('GET', `/captures/${id}/activity`, { auth: s.bearer })).body).data;

/** A zip whose one big entry is real deflate data: `inflated` zero bytes in a few hundred KB. */
function zipBomb(inflated: number): Buffer {
  const files: [string, Buffer, number][] = [
    [
      '[Content_Types].xml',
      Buffer.from(
        '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">' +
          '<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>',
      ),
      0,
    ],
    ['word/document.xml', Buffer.alloc(inflated), 0],
  ];
  const locals: Buffer[] = [];
  const central: Buffer[] = [];
  let offset = 0;
  for (const [name, data] of files) {
    const packed = deflateRawSync(data, { level: 9 });
    const head = Buffer.alloc(30);
    head.writeUInt32LE(0x04034b50, 0);
    head.writeUInt16LE(20, 4);
    head.writeUInt16LE(8, 8);
    head.writeUInt32LE(crc32(data), 14);
    head.writeUInt32LE(packed.length, 18);
    head.writeUInt32LE(data.length, 22);
    head.writeUInt16LE(name.length, 26);
    const cd = Buffer.alloc(46);
    cd.writeUInt32LE(0x02014b50, 0);
    cd.writeUInt16LE(20, 4);
    cd.writeUInt16LE(20, 6);
    cd.writeUInt16LE(8, 10);
    cd.writeUInt32LE(crc32(data), 16);
    cd.writeUInt32LE(packed.length, 20);
    cd.writeUInt32LE(data.length, 24);
    cd.writeUInt16LE(name.length, 28);
    cd.writeUInt32LE(offset, 42);
    const local = Buffer.concat([head, Buffer.from(name), packed]);
    locals.push(local);
    central.push(Buffer.concat([cd, Buffer.from(name)]));
    offset += local.length;
  }
  const cd = Buffer.concat(central);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(files.length, 8);
  end.writeUInt16LE(files.length, 10);
  end.writeUInt32LE(cd.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, cd, end]);
}

describe('ingest pipeline', () => {
  it('turns a note into a raw node with tags; provenance lists each stage with its model; activity in order', async () => {
    const text =
      'Spaced repetition schedules reviews at growing intervals. Reviews just before forgetting strengthen memory the most. Spaced repetition works for vocabulary and facts.';
    const c = await create({ title: 'Spaced repetition', content_type: 'note', raw_content: text });
    const done = await settled(c.id);
    expect(done).toMatchObject({ status: 'processed', error: null });
    expect(done.node_ids).toHaveLength(1);
    const node = conforms(Node, (await api('GET', `/nodes/${done.node_ids[0]}`, { auth: s.bearer })).body);
    expect(node).toMatchObject({ title: 'Spaced repetition', body_markdown: text, status: 'raw' });
    expect(node.tags).toEqual(expect.arrayContaining(['repetition', 'spaced']));
    expect(node.summary.length).toBeGreaterThan(0);

    const runs = (await provenance(c.id)).runs;
    expect(runs).toHaveLength(1);
    expect(runs[0]!.status).toBe('processed');
    expect(runs[0]!.stages.map((st) => [st.name, st.model])).toEqual([
      ['extract', 'passthrough@1'],
      ['summarise', expect.stringMatching(/^kg-extractive@1\.0/)],
      ['node', 'graph captures.upsertNode@1'],
      ['propose', expect.stringMatching(/^propose@1 \(links: search suggestions, /)],
    ]);
    for (const st of runs[0]!.stages) expect(st.input_digest).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(runs[0]!.stages[2]!.output).toEqual({ node_ids: done.node_ids, created: true });

    const kinds = (await activity(c.id)).map((a) => a.kind);
    expect(kinds).toEqual([
      'created',
      'queued',
      'processing_started',
      'stage_completed',
      'stage_completed',
      'stage_completed',
      'stage_completed',
      'processed',
    ]);
    const markdown = await api('GET', `/captures/${c.id}/content?format=markdown`, { auth: s.bearer });
    expect(markdown.status).toBe(200);
    expect(markdown.body).toBe(text);
  });

  it('fetches a URL capture from a local test server and keeps the article as markdown', async () => {
    const c = await create({ title: 'Wood wide web', content_type: 'article', url: pageUrl });
    const done = await settled(c.id);
    expect(done.status, done.error ?? '').toBe('processed');
    const stages = (await provenance(c.id)).runs[0]!.stages;
    expect(stages.map((st) => st.name)).toEqual(['fetch', 'extract', 'summarise', 'node', 'propose']);
    expect(stages[0]).toMatchObject({
      model: 'http-fetch@1',
      output: { status: 200, mime: 'text/html', url: pageUrl },
    });
    expect(stages[1]!.model).toMatch(/^readability/);
    const node = conforms(Node, (await api('GET', `/nodes/${done.node_ids[0]}`, { auth: s.bearer })).body);
    expect(node.body_markdown).toContain('Fungal mycelium connects the roots of trees');
    expect(node.body_markdown).not.toContain('Cookie banner');
  });

  it('refuses to fetch private addresses (SSRF): the capture fails at fetch with the reason', async () => {
    for (const url of [
      'http://169.254.169.254/latest/meta-data/',
      'http://10.0.0.1/admin',
      'http://[::ffff:192.168.0.1]/',
    ]) {
      const c = await create({ title: 'Metadata', content_type: 'article', url });
      const done = await settled(c.id);
      expect(done.status).toBe('failed');
      // The rule that refused it, never an address the host resolved to.
      expect(done.error).toMatch(
        /^fetch: refused: the address of \S+ is not public \((link-local|private)\); only public addresses are fetched$/,
      );
      expect(done.node_ids).toEqual([]);
      expect((await provenance(c.id)).runs[0]!.stages).toEqual([]);
    }
    // retry runs the failed capture again: a second run, failed for the same reason.
    const last = (await api<{ data: Capture[] }>('GET', '/captures?status=failed&per_page=1', { auth: s.bearer })).body
      .data[0]!;
    expect((await api('POST', `/captures/${last.id}/retry`, { auth: s.bearer })).status).toBeLessThan(300);
    const again = await settled(last.id);
    expect(again.status).toBe('failed');
    expect((await provenance(last.id)).runs.map((r) => r.status)).toEqual(['failed', 'failed']);
  });

  it('extracts uploaded PDF, DOCX and PNG files (text layer, mammoth, dimensions + OCR)', async () => {
    const cases: [Buffer, string, RegExp, string][] = [
      [pdf('Lichens are fungi living with algae.'), 'lichen.pdf', /^unpdf/, 'Lichens are fungi living with algae.'],
      [docx('Moss grows on the north side.'), 'moss.docx', /^mammoth/, 'Moss grows on the north side.'],
    ];
    for (const [bytes, name, model, text] of cases) {
      const done = await settled((await upload(bytes, name)).id);
      expect(done.status, done.error ?? '').toBe('processed');
      const extract = (await provenance(done.id)).runs[0]!.stages.find((st) => st.name === 'extract')!;
      expect(extract.model).toMatch(model);
      expect(extract.output.markdown).toBe(text);
    }
    const image = await settled((await upload(png(7, 5), 'dot.png')).id, 60_000);
    expect(image.status, image.error ?? '').toBe('processed');
    const extract = (await provenance(image.id)).runs[0]!.stages.find((st) => st.name === 'extract')!;
    expect(extract.model).toMatch(/^image-size@2 \+ tesseract\.js@/);
    expect(extract.output).toMatchObject({ format: 'image', metadata: { width: 7, height: 5, image_type: 'png' } });
    expect(image.metadata).toMatchObject({ width: 7, height: 5 });
  });

  it('fails the capture, never the server, on a corrupt image (header readable, data cut off)', async () => {
    const whole = png(64, 64);
    const cut = whole.subarray(0, whole.length - 12); // the IDAT data and IEND are gone
    const done = await settled((await upload(cut, 'cut.png')).id, 60_000);
    expect(done.status).toBe('failed');
    expect(done.error).toMatch(/^extract: OCR could not read the image/);
    expect((await fetch(`${inject('baseUrl')}/healthz`)).status).toBe(200);
  });

  it('refuses a DOCX zip bomb before inflating it; the capture fails at extract', async () => {
    const body = await upload(zipBomb(120 * 1024 * 1024), 'bomb.docx');
    const done = await settled(body.id);
    expect(done.status).toBe('failed');
    expect(done.error).toBe(
      'extract: archive inflates to more than 104857600 bytes (a zip bomb?); refused before decompression',
    );
  });

  it('reingest replaces the node instead of adding one', async () => {
    const c = await create({ title: 'Once', content_type: 'note', raw_content: 'Only one node per capture.' });
    const first = await settled(c.id);
    expect(first.status).toBe('processed');
    const before = (await api('GET', '/nodes?per_page=100', { auth: s.bearer })).body.total as number;
    const re = await api('POST', `/captures/${c.id}/reingest`, { auth: s.bearer });
    expect(re.status, JSON.stringify(re.body)).toBeLessThan(300);
    const second = await settled(c.id);
    expect(second.status).toBe('processed');
    expect(second.node_ids).toEqual(first.node_ids);
    expect((await api('GET', '/nodes?per_page=100', { auth: s.bearer })).body.total).toBe(before);
    const runs = (await provenance(c.id)).runs;
    expect(runs).toHaveLength(2);
    expect(runs.map((r) => r.stages.find((st) => st.name === 'node')!.output)).toEqual([
      { node_ids: first.node_ids, created: true },
      { node_ids: first.node_ids, created: false },
    ]);
  });
});
