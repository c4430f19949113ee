import { Readable } from 'node:stream';
import type { Request } from 'express';
import { describe, expect, it } from 'vitest';
import { detectType, readUpload } from './uploads';

/** An OLE compound file header followed by a directory entry named `name` (UTF-16LE), as Word 97-2003 writes. */
function cfb(name: string): Buffer {
  const b = Buffer.alloc(2048);
  b.set([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1], 0);
  b.writeUInt16LE(0x003e, 24);
  b.writeUInt16LE(0x0003, 26);
  b.writeUInt16LE(0xfffe, 28);
  b.writeUInt16LE(9, 30);
  b.write(name, 1024, 'utf16le');
  return b;
}

/** A multipart body of `parts`; a null name leaves the part's Content-Disposition without one. */
const multipart = (parts: Array<{ name: string | null; filename?: string; body: Buffer | string }>) => {
  const boundary = 'kgboundary123';
  const chunks: Buffer[] = [];
  for (const p of parts) {
    const disposition = `form-data${p.name === null ? '' : `; name="${p.name}"`}${p.filename ? `; filename="${p.filename}"` : ''}`;
    chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: ${disposition}\r\n\r\n`));
    chunks.push(Buffer.isBuffer(p.body) ? p.body : Buffer.from(p.body));
    chunks.push(Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  const body = Buffer.concat(chunks);
  const req = Readable.from([body]) as unknown as Request;
  req.headers = { 'content-type': `multipart/form-data; boundary=${boundary}`, 'content-length': String(body.length) };
  return req;
};

describe('upload type detection', () => {
  it('recognises Word 97-2003 by its WordDocument stream, and refuses other compound files', async () => {
    expect(await detectType(cfb('WordDocument'), 'a.doc', '')).toBe('application/msword');
    await expect(detectType(cfb('Workbook'), 'a.doc', 'application/msword')).rejects.toMatchObject({
      kind: 'unsupported_media_type',
    });
  });

  it('accepts text only when the name or declared type says so, as UTF-8 without NUL', async () => {
    expect(await detectType(Buffer.from('hé'), 'a.txt', '')).toBe('text/plain');
    expect(await detectType(Buffer.from('# x'), 'a', 'text/markdown')).toBe('text/markdown');
    expect(await detectType(Buffer.from('# x'), 'notes.markdown', '')).toBe('text/markdown');
    for (const [bytes, name] of [
      [Buffer.from('plain'), 'a.bin'],
      [Buffer.from([0x61, 0, 0x62]), 'a.txt'],
      [Buffer.from([0xc3, 0x28]), 'a.txt'],
    ] as const)
      await expect(detectType(bytes, name, '')).rejects.toMatchObject({ kind: 'unsupported_media_type' });
  });
});

/** A read deadline these in-memory bodies never come near. */
const deadline = { graceSeconds: 60, minBytesPerSecond: 1024 };

describe('readUpload', () => {
  it('reads the file and the allowed fields, whatever their order', async () => {
    const up = await readUpload(
      multipart([
        { name: 'why', body: 'because' },
        { name: 'file', filename: 'n.md', body: '# Note' },
        { name: 'title', body: 'T' },
      ]),
      { maxBytes: 100, allowedFields: ['title', 'why'], deadline },
    );
    expect(up).toMatchObject({ filename: 'n.md', mimeType: 'text/markdown', contentType: 'note' });
    expect(up.fields).toEqual({ why: 'because', title: 'T' });
    expect(up.bytes.toString()).toBe('# Note');
  });

  it('accepts exactly maxBytes and refuses one byte more with 413', async () => {
    const opts = { maxBytes: 64, allowedFields: [], deadline };
    const ok = await readUpload(multipart([{ name: 'file', filename: 'a.txt', body: 'a'.repeat(64) }]), opts);
    expect(ok.bytes.length).toBe(64);
    await expect(
      readUpload(multipart([{ name: 'file', filename: 'a.txt', body: 'a'.repeat(65) }]), opts),
    ).rejects.toMatchObject({ kind: 'payload_too_large' });
  });

  it('refuses a second file, an unknown field, a repeated field, and a body that is not multipart', async () => {
    const opts = { maxBytes: 64, allowedFields: ['title'], deadline };
    const file = { name: 'file', filename: 'a.txt', body: 'x' };
    await expect(readUpload(multipart([file, file]), opts)).rejects.toMatchObject({ kind: 'invalid' });
    const title = { name: 'title', body: 'one' };
    await expect(readUpload(multipart([title, file, { ...title, body: 'two' }]), opts)).rejects.toMatchObject({
      kind: 'invalid',
      extra: { errors: [{ path: 'title', message: 'given twice' }] },
    });
    await expect(readUpload(multipart([title, file]), opts)).resolves.toMatchObject({ fields: { title: 'one' } });
    await expect(readUpload(multipart([file, { name: 'x', body: '1' }]), opts)).rejects.toMatchObject({
      kind: 'invalid',
    });
    // A part without a name (the fuzzer's find): the error still names a path, as the contract says.
    const nameless = { kind: 'invalid', extra: { errors: [{ path: '', message: expect.stringMatching(/no name/) }] } };
    await expect(readUpload(multipart([{ name: null, body: '1' }, file]), opts)).rejects.toMatchObject(nameless);
    await expect(readUpload(multipart([{ ...file, name: null }]), opts)).rejects.toMatchObject(nameless);
    // The fuzzer's own request: `name=""`.
    await expect(readUpload(multipart([{ name: '', body: 'null' }]), opts)).rejects.toMatchObject(nameless);
    const json = Readable.from([Buffer.from('{}')]) as unknown as Request;
    json.headers = { 'content-type': 'application/json' };
    await expect(readUpload(json, opts)).rejects.toMatchObject({ kind: 'unsupported_media_type' });
  });
});
