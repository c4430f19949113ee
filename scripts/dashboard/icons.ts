/**
 * The dashboard's app icons as PNG (an installable web app needs 192 and 512 pixel ones; the
 * favicon is SVG): the favicon's three linked nodes, drawn here from the same shapes, so no
 * binary file is kept in the repository. scripts/dashboard/build.sh writes them beside the
 * built files (`tsx scripts/dashboard/icons.ts <dir>`), the browser extension's build into
 * its public/icons (`tsx scripts/dashboard/icons.ts <dir> extension`).
 *
 *   icon-192.png, icon-512.png   the motif on a transparent background ("any")
 *   icon-maskable-512.png         on a white square, within the central 80% safe zone ("maskable")
 *   16.png … 128.png              the extension's toolbar and store icons (transparent)
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { crc32, deflateSync } from 'node:zlib';

type Rgb = [number, number, number];
type Shape = { color: Rgb; covers: (x: number, y: number) => boolean };

const hex = (h: string): Rgb => [1, 3, 5].map((i) => parseInt(h.slice(i, i + 2), 16)) as Rgb;

const circle = (cx: number, cy: number, r: number, color: string): Shape => ({
  color: hex(color),
  covers: (x, y) => (x - cx) ** 2 + (y - cy) ** 2 <= r * r,
});

/** A stroke of `width` from (x1, y1) to (x2, y2), butt ends, as SVG draws a path segment. */
const segment = (x1: number, y1: number, x2: number, y2: number, width: number, color: string): Shape => {
  const dx = x2 - x1;
  const dy = y2 - y1;
  const length2 = dx * dx + dy * dy;
  return {
    color: hex(color),
    covers: (x, y) => {
      const t = ((x - x1) * dx + (y - y1) * dy) / length2;
      if (t < 0 || t > 1) return false;
      const px = x1 + t * dx - x;
      const py = y1 + t * dy - y;
      return px * px + py * py <= (width / 2) ** 2;
    },
  };
};

/** clients/dashboard/public/favicon.svg (viewBox 0 0 32 32), in its drawing order. */
export const MOTIF: Shape[] = [
  circle(8, 22, 5, '#2563eb'),
  circle(24, 9, 5, '#16a34a'),
  circle(24, 24, 4, '#c2410c'),
  segment(8, 22, 24, 9, 2, '#334155'),
  segment(8, 22, 24, 24, 2, '#334155'),
  segment(24, 9, 24, 24, 2, '#334155'),
];

/** Samples per pixel along each axis (anti-aliasing). */
const SAMPLES = 4;

/**
 * RGBA pixels of the motif at `size` pixels, scaled so its 32-unit box spans `scale` of the
 * icon, centred, over `background` (transparent when null).
 */
export function render(size: number, scale: number, background: Rgb | null): Buffer {
  const pixels = Buffer.alloc(size * size * 4);
  const unit = (size * scale) / 32;
  const offset = (size - size * scale) / 2;
  for (let py = 0; py < size; py++) {
    for (let px = 0; px < size; px++) {
      // Straight alpha compositing of each sample, then averaged (premultiplied) over the pixel.
      let r = 0;
      let g = 0;
      let b = 0;
      let a = 0;
      for (let sy = 0; sy < SAMPLES; sy++) {
        for (let sx = 0; sx < SAMPLES; sx++) {
          const x = (px + (sx + 0.5) / SAMPLES - offset) / unit;
          const y = (py + (sy + 0.5) / SAMPLES - offset) / unit;
          let top: Rgb | null = background;
          for (const shape of MOTIF) if (shape.covers(x, y)) top = shape.color;
          if (!top) continue;
          r += top[0];
          g += top[1];
          b += top[2];
          a += 1;
        }
      }
      const i = (py * size + px) * 4;
      if (a === 0) continue;
      pixels[i] = Math.round(r / a);
      pixels[i + 1] = Math.round(g / a);
      pixels[i + 2] = Math.round(b / a);
      pixels[i + 3] = Math.round((255 * a) / SAMPLES ** 2);
    }
  }
  return pixels;
}

const chunk = (type: string, data: Buffer) => {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'latin1');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])), 0);
  return Buffer.concat([head, data, crc]);
};

/** A PNG file (8-bit RGBA, no filtering) of `size`×`size` RGBA pixels. */
export function encodePng(size: number, rgba: Buffer): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(size, 0);
  header.writeUInt32BE(size, 4);
  header[8] = 8; // bit depth
  header[9] = 6; // colour type: RGBA
  const rows = Buffer.alloc(size * (size * 4 + 1));
  for (let y = 0; y < size; y++) rgba.copy(rows, y * (size * 4 + 1) + 1, y * size * 4, (y + 1) * size * 4);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(rows, { level: 9 })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

export const ICONS = [
  { file: 'icon-192.png', size: 192, scale: 0.94, background: null },
  { file: 'icon-512.png', size: 512, scale: 0.94, background: null },
  { file: 'icon-maskable-512.png', size: 512, scale: 0.62, background: [255, 255, 255] as Rgb },
] as const;

export const EXTENSION_ICONS = [16, 32, 48, 128].map((size) => ({
  file: `${size}.png`,
  size,
  scale: 1,
  background: null,
}));

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(new URL(import.meta.url).pathname)) {
  const dir = process.argv[2];
  if (!dir) throw new Error('usage: tsx scripts/dashboard/icons.ts <output directory> [extension]');
  mkdirSync(dir, { recursive: true });
  for (const icon of process.argv[3] === 'extension' ? EXTENSION_ICONS : ICONS)
    writeFileSync(path.join(dir, icon.file), encodePng(icon.size, render(icon.size, icon.scale, icon.background)));
}
