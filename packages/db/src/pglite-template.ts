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
 * When a folder is given the copy is kept there, per PGlite version (written atomically), and
 * each new database reads it from the file: the process holds none of its ~40 MB once its
 * databases are open. Without a folder (or when the copy cannot be written there) it is kept
 * in memory for the process's next database. Only a folder without a database (no
 * PG_VERSION) is ever filled from it.
 */
const PGLITE_VERSION: string = (() => {
  // Its package.json is not exported: found beside the entry point (dist/ of the package).
  const entry = createRequire(import.meta.url).resolve('@electric-sql/pglite');
  const manifest = path.join(path.dirname(entry), '..', 'package.json');
  return (JSON.parse(readFileSync(manifest, 'utf8')) as { version: string }).version;
})();

/** The copy while it is being made, and after when no folder keeps it. */
let inMemory: Promise<Blob> | undefined;

/** The copy: from memory, else from `dir`'s file, else made now (and written to `dir`). */
export function pgliteTemplate(initdb: () => Promise<PGlite>, dir: string | undefined): Promise<Blob> {
  if (inMemory) return inMemory;
  const file = dir ? templateFile(dir) : undefined;
  // Read for this database only: once PGlite has loaded it the blob is garbage, and its memory
  // (one mapping of its own, as large as it is) goes back to the system when it is collected.
  if (file && existsSync(file)) return Promise.resolve(new Blob([readFileSync(file)]));
  const held = make(initdb, file).then(
    ({ blob, written }) => {
      if (written && inMemory === held) inMemory = undefined;
      return blob;
    },
    (err: unknown) => {
      if (inMemory === held) inMemory = undefined;
      throw err;
    },
  );
  inMemory = held;
  return held;
}

/** Where the copy for this PGlite version is kept under `dir`. */
export const templateFile = (dir: string) => path.join(dir, `pgdata-${PGLITE_VERSION}.tar`);

async function make(
  initdb: () => Promise<PGlite>,
  file: string | undefined,
): Promise<{ blob: Blob; written: boolean }> {
  const pg = await initdb();
  let blob: Blob;
  try {
    blob = await pg.dumpDataDir('none');
  } finally {
    await pg.close();
  }
  if (!file) return { blob, written: false };
  try {
    mkdirSync(path.dirname(file), { recursive: true });
    const tmp = `${file}.${randomBytes(6).toString('hex')}.tmp`;
    writeFileSync(tmp, new Uint8Array(await blob.arrayBuffer()));
    renameSync(tmp, file);
    return { blob, written: true };
  } catch {
    // A read-only or full cache folder: this process keeps the copy in memory, the next one makes it again.
    return { blob, written: false };
  }
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
