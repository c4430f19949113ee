// Hostile files for the tests and benchmarks (type:test-lib): decompression bombs built in
// memory in milliseconds. A deflate stream of one repeated byte compresses ~1,000:1, and a
// stream that was flushed to a byte boundary can be repeated as is, so a bomb that inflates
// to 1 GiB costs one ~1 MiB chunk deflated once and ~1 MB of output, never the gigabyte.
import { constants, crc32, deflateRawSync } from 'node:zlib';

const CHUNK = 1 << 20;
const FILLER = 0x41; // 'A': valid inside an XML text run or a PDF string

/** A raw deflate stream of `head`, then `fillerBytes` of FILLER, then `tail`, and its CRC-32. */
function deflateFilled(head: Buffer, fillerBytes: number, tail: Buffer): { data: Buffer; crc: number } {
  const flushed = (buf: Buffer) => deflateRawSync(buf, { level: 9, finishFlush: constants.Z_FULL_FLUSH });
  const chunk = Buffer.alloc(CHUNK, FILLER);
  const chunkDeflated = flushed(chunk);
  const whole = Math.floor(fillerBytes / CHUNK);
  const rest = Buffer.concat([Buffer.alloc(fillerBytes - whole * CHUNK, FILLER), tail]);
  const parts = [flushed(head)];
  let crc = crc32(head);
  for (let i = 0; i < whole; i++) {
    parts.push(chunkDeflated);
    crc = crc32(chunk, crc);
  }
  parts.push(deflateRawSync(rest, { level: 9 }));
  crc = crc32(rest, crc);
  return { data: Buffer.concat(parts), crc };
}

/** Adler-32 (the zlib format's checksum) of `head`, `count` bytes of `byte`, then `tail`, in closed form. */
function adler32(head: Buffer, byte: number, count: number, tail: Buffer): number {
  const MOD = 65521n;
  let a = 1n;
  let b = 0n;
  const feed = (buf: Buffer) => {
    for (const x of buf) {
      a = (a + BigInt(x)) % MOD;
      b = (b + a) % MOD;
    }
  };
  feed(head);
  const n = BigInt(count);
  const c = BigInt(byte);
  // n steps of a += c: b gains n·a0 + c·n(n+1)/2.
  b = (b + n * a + (c * n * (n + 1n)) / 2n) % MOD;
  a = (a + n * c) % MOD;
  feed(tail);
  return Number((b << 16n) | a);
}

interface ZipEntry {
  name: string;
  /** Raw deflate data (method 8) or the stored bytes (method 0). */
  data: Buffer;
  method: 0 | 8;
  crc: number;
  /** The uncompressed size the headers state (a bomb lies here). */
  declaredSize: number;
}

/** A zip archive of `entries`, with the sizes each entry declares written in both the local header and the central directory. */
function writeZip(entries: ZipEntry[]): Buffer {
  const locals: Buffer[] = [];
  const central: Buffer[] = [];
  let offset = 0;
  for (const e of entries) {
    const name = Buffer.from(e.name, 'utf8');
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4); // version needed
    local.writeUInt16LE(0x0800, 6); // UTF-8 names
    local.writeUInt16LE(e.method, 8);
    local.writeUInt16LE(0, 10); // time
    local.writeUInt16LE(0x21, 12); // date: 1980-01-01
    local.writeUInt32LE(e.crc >>> 0, 14);
    local.writeUInt32LE(e.data.length, 18);
    local.writeUInt32LE(e.declaredSize, 22);
    local.writeUInt16LE(name.length, 26);
    local.writeUInt16LE(0, 28);
    const dir = Buffer.alloc(46);
    dir.writeUInt32LE(0x02014b50, 0);
    dir.writeUInt16LE(20, 4); // made by
    dir.writeUInt16LE(20, 6);
    dir.writeUInt16LE(0x0800, 8);
    dir.writeUInt16LE(e.method, 10);
    dir.writeUInt16LE(0, 12);
    dir.writeUInt16LE(0x21, 14);
    dir.writeUInt32LE(e.crc >>> 0, 16);
    dir.writeUInt32LE(e.data.length, 20);
    dir.writeUInt32LE(e.declaredSize, 24);
    dir.writeUInt16LE(name.length, 28);
    dir.writeUInt32LE(offset, 42);
    locals.push(local, name, e.data);
    central.push(dir, name);
    offset += local.length + name.length + e.data.length;
  }
  const dirBytes = Buffer.concat(central);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(dirBytes.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, dirBytes, end]);
}

const stored = (name: string, text: string): ZipEntry => {
  const data = Buffer.from(text, 'utf8');
  return { name, data, method: 0, crc: crc32(data), declaredSize: data.length };
};

const CONTENT_TYPES =
  '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>';
const RELS =
  '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>';
const DOC_HEAD =
  '<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>';
const DOC_TAIL = '</w:body></w:document>';

const xmlEscape = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;');

function docxWith(document: ZipEntry): Buffer {
  return writeZip([stored('[Content_Types].xml', CONTENT_TYPES), stored('_rels/.rels', RELS), document]);
}

/**
 * A .docx zip bomb: `[Content_Types].xml`, `_rels/.rels` and a `word/document.xml` whose local
 * header and central directory both declare `declaredBytes` uncompressed, while its deflate
 * stream really inflates to `inflatedBytes` (one paragraph of 'A's). ~1 MB per GiB inflated.
 */
export function docxBomb(opts: { inflatedBytes: number; declaredBytes?: number }): Buffer {
  const head = Buffer.from(`${DOC_HEAD}<w:p><w:r><w:t>`);
  const tail = Buffer.from(`</w:t></w:r></w:p>${DOC_TAIL}`);
  const filler = Math.max(0, opts.inflatedBytes - head.length - tail.length);
  const { data, crc } = deflateFilled(head, filler, tail);
  return docxWith({ name: 'word/document.xml', data, method: 8, crc, declaredSize: opts.declaredBytes ?? 1_000 });
}

/** A .docx whose headers are honest (`word/document.xml` declares what it inflates to) but whose inflation ratio is ~1,000:1. */
export function docxRatioBomb(opts: { inflatedBytes: number }): Buffer {
  const head = Buffer.from(`${DOC_HEAD}<w:p><w:r><w:t>`);
  const tail = Buffer.from(`</w:t></w:r></w:p>${DOC_TAIL}`);
  const filler = Math.max(0, opts.inflatedBytes - head.length - tail.length);
  const { data, crc } = deflateFilled(head, filler, tail);
  return docxWith({
    name: 'word/document.xml',
    data,
    method: 8,
    crc,
    declaredSize: head.length + filler + tail.length,
  });
}

/** An ordinary small .docx: a Heading1 paragraph and body paragraphs. */
export function docx(opts: { heading: string; paragraphs: string[] }): Buffer {
  const para = (text: string, style?: string) =>
    `<w:p>${style ? `<w:pPr><w:pStyle w:val="${style}"/></w:pPr>` : ''}<w:r><w:t>${xmlEscape(text)}</w:t></w:r></w:p>`;
  const xml = Buffer.from(
    `${DOC_HEAD}${para(opts.heading, 'Heading1')}${opts.paragraphs.map((p) => para(p)).join('')}${DOC_TAIL}`,
  );
  return docxWith({
    name: 'word/document.xml',
    data: deflateRawSync(xml),
    method: 8,
    crc: crc32(xml),
    declaredSize: xml.length,
  });
}

const pdfEscape = (s: string) => s.replace(/[\\()]/g, (c) => `\\${c}`);

/** A one-page PDF around `content` (the page's content stream, already encoded) with correct xref offsets. */
function pdfWith(content: Buffer, streamDict: string): Buffer {
  const parts: Buffer[] = [];
  const offsets: number[] = [];
  let length = 0;
  const push = (b: Buffer | string) => {
    const buf = typeof b === 'string' ? Buffer.from(b, 'latin1') : b;
    parts.push(buf);
    length += buf.length;
  };
  push('%PDF-1.4\n%\xe2\xe3\xcf\xd3\n');
  const objects: (string | Buffer[])[] = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
    [
      Buffer.from(`<< ${streamDict} /Length ${content.length} >>\nstream\n`, 'latin1'),
      content,
      Buffer.from('\nendstream', 'latin1'),
    ],
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
  ];
  objects.forEach((body, i) => {
    offsets.push(length);
    push(`${i + 1} 0 obj\n`);
    if (typeof body === 'string') push(body);
    else body.forEach(push);
    push('\nendobj\n');
  });
  const xref = length;
  let table = `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const o of offsets) table += `${String(o).padStart(10, '0')} 00000 n \n`;
  push(`${table}trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`);
  return Buffer.concat(parts);
}

/**
 * A PDF FlateDecode bomb: one page whose one content stream (zlib format, correct Adler-32)
 * inflates to `inflatedBytes`: a text operator showing one string of 'A's. ~1 MB per GiB.
 */
export function pdfBomb(opts: { inflatedBytes: number }): Buffer {
  const head = Buffer.from('BT /F1 12 Tf 72 720 Td (', 'latin1');
  const tail = Buffer.from(') Tj ET', 'latin1');
  const filler = Math.max(0, opts.inflatedBytes - head.length - tail.length);
  const { data } = deflateFilled(head, filler, tail);
  const sum = Buffer.alloc(4);
  sum.writeUInt32BE(adler32(head, FILLER, filler, tail) >>> 0);
  const zlibStream = Buffer.concat([Buffer.from([0x78, 0xda]), data, sum]);
  return pdfWith(zlibStream, '/Filter /FlateDecode');
}

/** An ordinary small one-page PDF whose text layer holds `lines`. */
export function pdf(opts: { lines: string[] }): Buffer {
  const content = Buffer.from(
    `BT /F1 18 Tf 72 720 Td 22 TL ${opts.lines.map((l) => `(${pdfEscape(l)}) '`).join(' ')} ET`,
    'latin1',
  );
  return pdfWith(content, '');
}
