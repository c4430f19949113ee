import { beforeAll, describe, expect, inject, it } from 'vitest';
import { Capture, Import, ImportList } from '@kg/contracts';
import { api, conforms, expectProblem, expectUnauthorized, newTenant, type Res, type Session } from './support/client';

/** IMPORT_MAX_BYTES of the servers under test (the global setups set 8 MiB). */
const MAX = 8 * 1024 * 1024;

let s: Session;
let other: Session;
beforeAll(async () => {
  [s, other] = await Promise.all([newTenant('imports'), newTenant('imports-other')]);
});

/** POST /imports with a real multipart body (fetch's FormData). */
async function postImport(
  auth: string | undefined,
  file: { name: string; bytes: Buffer | string } | null,
  fields: Record<string, string> = {},
): Promise<Res<any>> {
  const form = new FormData();
  for (const [k, v] of Object.entries(fields)) form.append(k, v);
  if (file) form.append('file', new Blob([Buffer.from(file.bytes)], { type: 'text/html' }), file.name);
  const res = await fetch(`${inject('baseUrl')}/api/v1/imports`, {
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

async function finished(auth: string, id: string, ms = 120_000): Promise<Import> {
  const end = Date.now() + ms;
  for (;;) {
    const res = await api('GET', `/imports/${id}`, { auth });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const imp = conforms(Import, res.body);
    if (['completed', 'failed', 'cancelled'].includes(imp.status)) return imp;
    if (Date.now() > end) throw new Error(`import ${id} still ${imp.status}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

const FILE = `<!DOCTYPE NETSCAPE-Bookmark-file-1>
<META HTTP-EQUIV="Content-Type" CONTENT="text/html; charset=UTF-8">
<TITLE>Bookmarks</TITLE>
<H1>Bookmarks</H1>
<DL><p>
  <DT><H3 ADD_DATE="1551700800">Reading</H3>
  <DL><p>
    <DT><H3>Essays</H3>
    <DL><p>
      <DT><A HREF="https://bookmarks.invalid/essay" ADD_DATE="1551700800" TAGS="long-read">An essay</A>
      <DD>Worth a second look
    </DL><p>
    <DT><A HREF="https://bookmarks.invalid/paper">A paper</A>
    <DT><A HREF="javascript:alert(document.cookie)">Bookmarklet</A>
    <DT><A HREF="data:text/html,<script>alert(1)</script>">Data</A>
    <DT><A HREF="file:///etc/passwd">File</A>
    <DT><A>Nowhere</A>
  </DL><p>
  <DT><A HREF="https://bookmarks.invalid/paper">The paper again</A>
  <DT><A HREF="https://bookmarks.invalid/top">Top level</A>
</DL><p>
`;

describe('POST /imports: a Netscape bookmark file with folders', () => {
  let imported: Import;

  it('answers 202 with the import and its Location, then imports it in the background', async () => {
    const res = await postImport(s.bearer, { name: 'bookmarks.html', bytes: FILE }, { para: 'true', source: 'cli' });
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    const created = conforms(Import, res.body);
    expect(created.id).toMatch(/^imp_/);
    expect(res.headers.get('location')).toBe(`/api/v1/imports/${created.id}`);
    expect(created).toMatchObject({
      format: 'netscape-html',
      filename: 'bookmarks.html',
      size_bytes: Buffer.byteLength(FILE),
      para: true,
      source: 'cli',
    });
    imported = await finished(s.bearer, created.id);
    expect(imported).toMatchObject({
      status: 'completed',
      counts: { seen: 7, created: 3, duplicates: 1, skipped: 3, invalid: 1 },
      progress: { bytes_read: Buffer.byteLength(FILE), size_bytes: Buffer.byteLength(FILE) },
      errors: [{ line: 17, reason: expect.stringContaining('no HREF') }],
      failure: null,
    });
  });

  it('each bookmark is a URL capture with metadata.import (folders, tags, date, note)', async () => {
    const res = await api('GET', '/captures?per_page=100', { auth: s.bearer });
    const mine = (res.body.data as unknown[])
      .map((c) => conforms(Capture, c))
      .filter((c) => (c.metadata['import'] as { import_id?: string } | undefined)?.import_id === imported.id);
    expect(mine.map((c) => c.url).sort()).toEqual([
      'https://bookmarks.invalid/essay',
      'https://bookmarks.invalid/paper',
      'https://bookmarks.invalid/top',
    ]);
    const essay = mine.find((c) => c.url === 'https://bookmarks.invalid/essay')!;
    expect(essay).toMatchObject({ title: 'An essay', source: 'cli', content_type: 'article', why: null });
    expect(essay.metadata['import']).toEqual({
      import_id: imported.id,
      folder: ['Reading', 'Essays'],
      tags: ['Reading', 'Essays', 'long-read'],
      added_at: '2019-03-04T12:00:00.000Z',
      note: 'Worth a second look',
      para: true,
    });
    expect(mine.find((c) => c.url?.endsWith('/top'))!.metadata['import']).toMatchObject({ folder: [], tags: [] });
  });

  it('importing the same file again creates nothing: every address is a duplicate', async () => {
    const res = await postImport(s.bearer, { name: 'bookmarks.html', bytes: FILE });
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    const again = await finished(s.bearer, res.body.id);
    expect(again.counts).toEqual({ seen: 7, created: 0, duplicates: 4, skipped: 3, invalid: 1 });
    expect(again.source).toBe('api');
  });

  it('lists the imports newest first, paginated', async () => {
    const res = await api('GET', '/imports?per_page=1', { auth: s.bearer });
    expect(res.status).toBe(200);
    const page = conforms(ImportList, res.body);
    expect(page).toMatchObject({ total: 2, page: 1, per_page: 1 });
    expect(page.data[0]!.id).not.toBe(imported.id);
  });

  it("another tenant's import is 404 on every route; no credentials is 401", async () => {
    expectProblem(await api('GET', `/imports/${imported.id}`, { auth: other.bearer }), 404);
    expectProblem(await api('POST', `/imports/${imported.id}/cancel`, { auth: other.bearer }), 404);
    expect((await api('GET', '/imports', { auth: other.bearer })).body.total).toBe(0);
    expectUnauthorized(await api('GET', `/imports/${imported.id}`));
    expectUnauthorized(await api('GET', '/imports'));
    expectUnauthorized(await api('POST', `/imports/${imported.id}/cancel`));
    expectUnauthorized(await postImport(undefined, { name: 'b.html', bytes: FILE }));
    expectProblem(await api('GET', '/imports/imp_unknown', { auth: s.bearer }), 404);
  });

  it('cancel of a finished import is 409', async () => {
    expectProblem(await api('POST', `/imports/${imported.id}/cancel`, { auth: s.bearer }), 409);
  });
});

describe('POST /imports: hostile files', () => {
  it('an empty file, and one of no known format, are 400 naming the field; a binary file is 415', async () => {
    const empty = expectProblem(await postImport(s.bearer, { name: 'empty.html', bytes: '' }), 400);
    expect(empty.errors?.map((e) => e.path)).toEqual(['file']);
    const prose = expectProblem(
      await postImport(s.bearer, { name: 'notes.txt', bytes: 'Dear diary,\nnothing to see.\n' }),
      400,
    );
    expect(prose.errors?.map((e) => e.path)).toEqual(['file', 'format']);
    const pdf = expectProblem(
      await postImport(s.bearer, { name: 'b.html', bytes: Buffer.from('%PDF-1.7\n%\u00e2\u00e3\n1 0 obj\n') }),
      415,
    );
    expect(pdf.detail).toContain('application/pdf');
    const format = expectProblem(await postImport(s.bearer, { name: 'b.html', bytes: FILE }, { format: 'opml' }), 400);
    expect(format.errors?.[0]?.path).toBe('format');
    // None of them left an import behind.
    expect((await api('GET', '/imports', { auth: s.bearer })).body.total).toBe(2);
  });

  it('a large file streams in parts and is imported whole; one byte over IMPORT_MAX_BYTES is 413', async () => {
    // About 6 MiB of bookmarklets (skipped) with an address every 10,000 entries: two parts of 4 MiB.
    const lines: string[] = [];
    let size = 0;
    for (let i = 0; size < 6 * 1024 * 1024; i++) {
      const line =
        i % 10_000 === 0
          ? `<DT><A HREF="https://bookmarks.invalid/large/${i}">Large ${i}</A>\n`
          : `<DT><A HREF="javascript:void(${i})">Bookmarklet ${i}</A>\n`;
      lines.push(line);
      size += line.length;
    }
    const file = `<!DOCTYPE NETSCAPE-Bookmark-file-1>\n<DL><p>\n${lines.join('')}</DL><p>\n`;
    const res = await postImport(s.bearer, { name: 'large.html', bytes: file });
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    const done = await finished(s.bearer, res.body.id, 240_000);
    const real = Math.ceil(lines.length / 10_000);
    expect(done.counts).toEqual({
      seen: lines.length,
      created: real,
      duplicates: 0,
      skipped: lines.length - real,
      invalid: 0,
    });
    const over = await postImport(s.bearer, { name: 'over.html', bytes: Buffer.alloc(MAX + 1, '<') });
    expect(over.status, JSON.stringify(over.body)).toBe(413);
    expect(over.headers.get('content-type')).toContain('application/problem+json');
    expect((await api('GET', '/imports', { auth: s.bearer })).body.total).toBe(3);
  });

  it('cancel of a queued import answers 202, a second cancel 409', async () => {
    // Queued behind nothing it may already run: cancel answers 202 while it has not finished.
    const many = Array.from({ length: 400 }, (_, i) => `<DT><A HREF="https://bookmarks.invalid/c/${i}">C ${i}</A>\n`);
    const res = await postImport(s.bearer, { name: 'c.html', bytes: `<DL><p>\n${many.join('')}</DL>\n` });
    expect(res.status).toBe(202);
    const first = await api('POST', `/imports/${res.body.id}/cancel`, { auth: s.bearer });
    if (first.status === 202) {
      expect(conforms(Import, first.body).status).toBe('cancelled');
      expectProblem(await api('POST', `/imports/${res.body.id}/cancel`, { auth: s.bearer }), 409);
    } else {
      // It finished first (a fast machine): a cancel is then a 409 every time.
      expectProblem(first, 409);
    }
    const after = await finished(s.bearer, res.body.id);
    expect(after.counts.created).toBeLessThanOrEqual(400);
  });
});
