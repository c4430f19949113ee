import { inflateSync, crc32 } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { ICONS, encodePng, render } from './icons';

/** Reads back what encodePng wrote: the chunks (CRCs checked) and the RGBA pixels. */
function decode(png: Buffer) {
  expect(png.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
  const chunks: Record<string, Buffer> = {};
  for (let at = 8; at < png.length;) {
    const length = png.readUInt32BE(at);
    const typeAndData = png.subarray(at + 4, at + 8 + length);
    expect(png.readUInt32BE(at + 8 + length)).toBe(crc32(typeAndData));
    chunks[typeAndData.subarray(0, 4).toString('latin1')] = typeAndData.subarray(4);
    at += 12 + length;
  }
  const size = chunks['IHDR']!.readUInt32BE(0);
  const rows = inflateSync(chunks['IDAT']!);
  const pixel = (x: number, y: number) => [...rows.subarray(y * (size * 4 + 1) + 1 + x * 4).subarray(0, 4)];
  return { size, header: chunks['IHDR']!, pixel, end: 'IEND' in chunks };
}

describe('dashboard icons', () => {
  it('are valid RGBA PNGs of the favicon motif at each size', () => {
    for (const icon of ICONS) {
      const { size, header, pixel, end } = decode(encodePng(icon.size, render(icon.size, icon.scale, icon.background)));
      expect(size).toBe(icon.size);
      expect([header[8], header[9]]).toEqual([8, 6]);
      expect(end).toBe(true);
      // Inside the blue node (centre 8, 22 of 32; its links start at the centre) is opaque blue; the
      // top-left corner is the background.
      const unit = (icon.size * icon.scale) / 32;
      const offset = (icon.size - icon.size * icon.scale) / 2;
      expect(pixel(Math.floor(offset + 5 * unit), Math.floor(offset + 22 * unit))).toEqual([0x25, 0x63, 0xeb, 255]);
      expect(pixel(0, 0)).toEqual(icon.background ? [255, 255, 255, 255] : [0, 0, 0, 0]);
    }
  });

  it('keeps a maskable icon inside the central safe zone (a circle of 40% of the size)', () => {
    const icon = ICONS.find((i) => i.file === 'icon-maskable-512.png')!;
    const { pixel } = decode(encodePng(icon.size, render(icon.size, icon.scale, icon.background)));
    const c = icon.size / 2;
    for (let y = 0; y < icon.size; y += 4)
      for (let x = 0; x < icon.size; x += 4)
        if (Math.hypot(x - c, y - c) > 0.4 * icon.size) expect(pixel(x, y)).toEqual([255, 255, 255, 255]);
  });
});
