import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { PGlite } from '@electric-sql/pglite';

/**
 * initdb's output for PGlite, made once and copied: a new database loads the copy (PGlite's
 * `loadDataDir`, as its own `clone()` does) instead of running initdb again. On a 2-core
 * machine initdb costs 3.5-4 s of CPU and loading the copy 0.9 s; test rigs open a new
 * in-memory database per file, and every test's embedded server a new DATA_DIR.
 *
 * The copy is kept in memory per process and, when a folder is given, on disk per PGlite
 * version (written atomically), so a process that opens one new database skips initdb too.
 * Only a folder without a database (no PG_VERSION) is ever filled from it.
 */
const PGLITE_VERSION: string = (() => {
  // Its package.json is not exported: found beside the entry point (dist/ of the package).
  const entry = createRequire(import.meta.url).resolve('@electric-sql/pglite');
  const manifest = path.join(path.dirname(entry), '..', 'package.json');
  return (JSON.parse(readFileSync(manifest, 'utf8')) as { version: string }).version;
})();

let inMemory: Promise<Blob> | undefined;

/** The copy: from memory, else from `dir`, else made now (and written to `dir`). */
export function pgliteTemplate(initdb: () => Promise<PGlite>, dir: string | undefined): Promise<Blob> {
  inMemory ??= load(initdb, dir).catch((err: unknown) => {
    inMemory = undefined;
    throw err;
  });
  return inMemory;
}

/** Where the copy for this PGlite version is kept under `dir`. */
export const templateFile = (dir: string) => path.join(dir, `pgdata-${PGLITE_VERSION}.tar`);

async function load(initdb: () => Promise<PGlite>, dir: string | undefined): Promise<Blob> {
  const file = dir ? templateFile(dir) : undefined;
  if (file && existsSync(file)) return new Blob([readFileSync(file)]);
  const pg = await initdb();
  let blob: Blob;
  try {
    blob = await pg.dumpDataDir('none');
  } finally {
    await pg.close();
  }
  if (file) {
    try {
      mkdirSync(path.dirname(file), { recursive: true });
      const tmp = `${file}.${randomBytes(6).toString('hex')}.tmp`;
      writeFileSync(tmp, new Uint8Array(await blob.arrayBuffer()));
      renameSync(tmp, file);
    } catch {
      // A read-only or full cache folder: the next process makes the copy again.
    }
  }
  return blob;
}

/** Drops a copy that PGlite could not load (truncated, another version's) from memory and disk. */
export function forgetPgliteTemplate(dir: string | undefined): void {
  inMemory = undefined;
  if (dir) rmSync(templateFile(dir), { force: true });
}

/** A folder PGlite may fill from the copy: absent or empty. */
export function isNewDataDir(dir: string): boolean {
  return !existsSync(dir) || readdirSync(dir).length === 0;
}
