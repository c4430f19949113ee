import { deflateSync } from 'node:zlib';
import yazl from 'yazl';
import { StageError } from '../result';

/** Real minimal files built in memory for the extract tests (no binary fixtures to trust). */

/** A one-page PDF whose text layer holds `lines`, with correct xref offsets. */
export function makePdf(lines: string[], title = 'Test PDF'): Buffer {
  const escape = (s: string) => s.replace(/[\\()]/g, (c) => `\\${c}`);
  const stream = `BT /F1 18 Tf 72 720 Td 22 TL ${lines.map((l) => `(${escape(l)}) '`).join(' ')} ET`;
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
    `<< /Length ${stream.length} >>\nstream\n${stream}\nendstream`,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
    `<< /Title (${escape(title)}) /Author (Test Author) >>`,
  ];
  let out = '%PDF-1.4\n';
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    offsets.push(out.length);
    out += `${i + 1} 0 obj\n${body}\nendobj\n`;
  });
  const xref = out.length;
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const o of offsets) out += `${String(o).padStart(10, '0')} 00000 n \n`;
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R /Info 6 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(out, 'latin1');
}

/** A zip of the given entries. */
export function makeZip(entries: Record<string, string | Buffer>): Promise<Buffer> {
  const zip = new yazl.ZipFile();
  for (const [name, data] of Object.entries(entries))
    zip.addBuffer(Buffer.isBuffer(data) ? data : Buffer.from(data), name);
  zip.end();
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    zip.outputStream.on('data', (c: Buffer) => chunks.push(c));
    zip.outputStream.on('end', () => resolve(Buffer.concat(chunks)));
    zip.outputStream.on('error', reject);
  });
}

const xmlEscape = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;');

/** A minimal valid DOCX: a heading and paragraphs. */
export function makeDocx(
  heading: string,
  paragraphs: string[],
  extra: Record<string, string | Buffer> = {},
): Promise<Buffer> {
  const para = (text: string, style?: string) =>
    `<w:p>${style ? `<w:pPr><w:pStyle w:val="${style}"/></w:pPr>` : ''}<w:r><w:t>${xmlEscape(text)}</w:t></w:r></w:p>`;
  return makeZip({
    '[Content_Types].xml':
      '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>',
    '_rels/.rels':
      '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>',
    'word/document.xml': `<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>${para(heading, 'Heading1')}${paragraphs.map((p) => para(p)).join('')}</w:body></w:document>`,
    ...extra,
  });
}

/**
 * A zip bomb in miniature: one entry whose central directory declares `declared` bytes once
 * inflated. The entry is real deflate data of that many zeros when `declared` is small enough
 * to build, so it is a valid zip either way.
 */
export async function makeZipBomb(inflatedBytes: number): Promise<Buffer> {
  return makeDocx('Bomb', ['boom'], { 'word/media/zeros.bin': Buffer.alloc(inflatedBytes) });
}

const crcTable = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
const crc = (buf: Buffer) => {
  let c = 0xffffffff;
  for (const b of buf) c = crcTable[(c ^ b) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
};
const pngChunk = (type: string, data: Buffer) => {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const sum = Buffer.alloc(4);
  sum.writeUInt32BE(crc(body));
  return Buffer.concat([len, body, sum]);
};

/** A greyscale PNG of width × height whose pixel (x, y) is black where `ink` says so; real zlib data and CRCs. */
export function makePng(width: number, height: number, ink: (x: number, y: number) => boolean = () => false): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 0; // greyscale
  const rows: Buffer[] = [];
  for (let y = 0; y < height; y++) {
    const row = Buffer.alloc(width + 1, 0xff);
    row[0] = 0;
    for (let x = 0; x < width; x++) if (ink(x, y)) row[x + 1] = 0;
    rows.push(row);
  }
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk('IHDR', ihdr),
    pngChunk('IDAT', deflateSync(Buffer.concat(rows))),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
}

/** 5×7 glyphs of the few letters the OCR test writes. */
const GLYPHS: Record<string, string[]> = {
  H: ['10001', '10001', '10001', '11111', '10001', '10001', '10001'],
  E: ['11111', '10000', '10000', '11110', '10000', '10000', '11111'],
  L: ['10000', '10000', '10000', '10000', '10000', '10000', '11111'],
  O: ['01110', '10001', '10001', '10001', '10001', '10001', '01110'],
  W: ['10001', '10001', '10001', '10101', '10101', '10101', '01010'],
  R: ['11110', '10001', '10001', '11110', '10100', '10010', '10001'],
  D: ['11110', '10001', '10001', '10001', '10001', '10001', '11110'],
  ' ': ['00000', '00000', '00000', '00000', '00000', '00000', '00000'],
};

/** A PNG with `text` (letters of GLYPHS) drawn in a blocky font, `scale` pixels a dot, on a white margin. */
export function makeTextPng(text: string, scale = 6): Buffer {
  const margin = 4 * scale;
  const width = margin * 2 + text.length * 6 * scale;
  const height = margin * 2 + 7 * scale;
  return makePng(width, height, (x, y) => {
    const gx = Math.floor((x - margin) / scale);
    const gy = Math.floor((y - margin) / scale);
    if (x < margin || y < margin || gy >= 7 || gx < 0) return false;
    const glyph = GLYPHS[text[Math.floor(gx / 6)] ?? ' '];
    return glyph?.[gy]?.[gx % 6] === '1';
  });
}

/**
 * A minimal legacy Word (.doc) file: an OLE compound file (512-byte sectors: FAT, directory,
 * a 4 KiB `WordDocument` stream and a 4 KiB `1Table` stream) whose FIB points at a one-piece
 * piece table over `text` stored as 8-bit characters. Paragraphs end with \r, as Word writes them.
 */
export function makeDoc(paragraphs: string[]): Buffer {
  const SECTOR = 512;
  const STREAM = 4096; // = the short-stream cutoff, so both streams live in regular sectors
  const text = paragraphs.map((p) => `${p}\r`).join('');
  const TEXT_AT = 0x800;
  const word = Buffer.alloc(STREAM);
  word.writeUInt16LE(0xa5ec, 0); // wIdent
  word.writeUInt16LE(0x00c1, 2); // nFib (Word 97)
  word.writeUInt16LE(0x0200, 0x0a); // fWhichTblStm: the table stream is 1Table
  word.writeUInt32LE(TEXT_AT, 0x18); // fcMin
  word.writeUInt32LE(text.length, 0x4c); // ccpText
  word.write(text, TEXT_AT, 'latin1');
  const table = Buffer.alloc(STREAM);
  // Clx: one Pcdt (0x02, lcb) holding the PlcPcd: CPs [0, n] and one 8-byte PCD.
  table.writeUInt8(0x02, 0);
  table.writeUInt32LE(16, 1);
  table.writeUInt32LE(0, 5);
  table.writeUInt32LE(text.length, 9);
  table.writeUInt16LE(0, 13);
  table.writeUInt32LE((0x40000000 | (TEXT_AT * 2)) >>> 0, 15); // compressed (8-bit) text at TEXT_AT
  table.writeUInt16LE(0, 19);
  word.writeUInt32LE(0, 0x1a2); // fcClx
  word.writeUInt32LE(21, 0x1a6); // lcbClx

  const sectors = 2 + (STREAM / SECTOR) * 2; // FAT, directory, WordDocument, 1Table
  const header = Buffer.alloc(SECTOR);
  Buffer.from('d0cf11e0a1b11ae1', 'hex').copy(header, 0);
  header.writeUInt16LE(0x3e, 24); // minor version
  header.writeUInt16LE(3, 26); // major version
  header.writeUInt16LE(0xfffe, 28); // byte order
  header.writeUInt16LE(9, 30); // sector shift: 512
  header.writeUInt16LE(6, 32); // mini sector shift: 64
  header.writeInt32LE(1, 44); // FAT sectors
  header.writeInt32LE(1, 48); // first directory sector
  header.writeInt32LE(STREAM, 56); // short-stream cutoff
  header.writeInt32LE(-2, 60); // no mini FAT
  header.writeInt32LE(0, 64);
  header.writeInt32LE(-2, 68); // no extra MSAT sectors
  header.writeInt32LE(0, 72);
  for (let i = 0; i < 109; i++) header.writeInt32LE(i === 0 ? 0 : -1, 76 + i * 4);

  const fat = Buffer.alloc(SECTOR, 0xff);
  fat.writeInt32LE(-3, 0); // sector 0 holds the FAT
  fat.writeInt32LE(-2, 4); // sector 1: the directory, one sector
  const chain = (first: number, count: number) => {
    for (let i = 0; i < count; i++) fat.writeInt32LE(i === count - 1 ? -2 : first + i + 1, (first + i) * 4);
  };
  chain(2, STREAM / SECTOR);
  chain(2 + STREAM / SECTOR, STREAM / SECTOR);

  const dir = Buffer.alloc(SECTOR);
  const entry = (
    i: number,
    name: string,
    type: number,
    opts: { child?: number; right?: number; sec?: number; size?: number },
  ) => {
    const at = i * 128;
    dir.write(name, at, 'utf16le');
    dir.writeUInt16LE((name.length + 1) * 2, at + 64);
    dir.writeInt8(type, at + 66);
    dir.writeInt8(1, at + 67); // black
    dir.writeInt32LE(-1, at + 68); // left
    dir.writeInt32LE(opts.right ?? -1, at + 72);
    dir.writeInt32LE(opts.child ?? -1, at + 76);
    dir.writeInt32LE(opts.sec ?? -2, at + 116);
    dir.writeInt32LE(opts.size ?? 0, at + 120);
  };
  entry(0, 'Root Entry', 5, { child: 1 });
  entry(1, 'WordDocument', 2, { right: 2, sec: 2, size: STREAM });
  entry(2, '1Table', 2, { sec: 2 + STREAM / SECTOR, size: STREAM });
  // Entry 3 is unused: no siblings, no child.
  for (const field of [68, 72, 76]) dir.writeInt32LE(-1, 3 * 128 + field);
  const out = Buffer.concat([header, fat, dir, word, table]);
  if (out.length !== SECTOR * (sectors + 1)) throw new Error('doc fixture layout');
  return out;
}

/** The StageError a job ends with (anything else, or no failure at all, fails the test). */
export async function stageFailure(job: Promise<unknown>): Promise<StageError> {
  try {
    await job;
  } catch (err) {
    if (err instanceof StageError) return err;
    throw err;
  }
  throw new Error('no failure');
}
