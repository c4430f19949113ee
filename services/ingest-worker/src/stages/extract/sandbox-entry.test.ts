import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { removeLeftovers, sandboxEntry } from './sandbox-entry';

describe('sandbox entry', () => {
  it('is plain JavaScript in a temporary folder of its own, built once per process', async () => {
    const entry = await sandboxEntry();
    expect(entry.startsWith(path.join(tmpdir(), 'kg-extract-'))).toBe(true);
    expect(await sandboxEntry()).toBe(entry);
    const files = await readdir(path.dirname(entry));
    expect(files.every((f) => f.endsWith('.js'))).toBe(true);
  });

  it('carries the HTML parsers inside; the other packages and our sources resolve where npm put them', async () => {
    const dir = path.dirname(await sandboxEntry());
    const code = (await Promise.all((await readdir(dir)).map((f) => readFile(path.join(dir, f), 'utf8')))).join('\n');
    const bare = [...code.matchAll(/^import\s[^;\n]*?from\s*"([^"]+)";|\bimport\("([^"]+)"\)/gm)].map(
      (m) => (m[1] ?? m[2])!,
    );
    // Nothing left for Node to find beside the bundle but its own modules and the bundle's chunks.
    expect(bare.filter((s) => !s.startsWith('node:') && !s.startsWith('./') && !s.startsWith('file://'))).toEqual([]);
    expect(bare.some((s) => s.startsWith('file://') && s.includes('/node_modules/unpdf/'))).toBe(true);
    expect(bare.some((s) => s.includes('linkedom'))).toBe(false);
    // ocr.ts resolves tesseract's files from its own location, not the bundle's.
    expect(code).toContain(JSON.stringify(new URL('./ocr.ts', import.meta.url).href));
  });

  it("removes the folder a killed process left behind, never a running process's", async () => {
    const gone = spawnSync('true').pid!; // a process that has ended
    const left = path.join(tmpdir(), `kg-extract-${gone}-test`);
    const running = path.join(tmpdir(), `kg-extract-${process.ppid}-test`);
    await mkdir(left, { recursive: true });
    await mkdir(running, { recursive: true });
    try {
      await removeLeftovers();
      expect(existsSync(left)).toBe(false);
      expect(existsSync(running)).toBe(true);
      expect(existsSync(path.dirname(await sandboxEntry()))).toBe(true);
    } finally {
      spawnSync('rm', ['-rf', left, running]);
    }
  });
});
