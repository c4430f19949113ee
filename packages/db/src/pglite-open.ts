import path from 'node:path';
import { mkdirSync, rmSync } from 'node:fs';
import type { PGlite } from '@electric-sql/pglite';
import { forgetPgliteTemplate, isNewDataDir, pgliteTemplate } from './pglite-template';

/** How the embedded database opens (client.ts `PgliteOptions`, less where it runs). */
export interface PgliteOpenOptions {
  /** The database's folder (its `pgdata` inside); null keeps it in memory. */
  dataDir: string | null;
  /** Where a copy of initdb's output is kept for new databases (pglite-template.ts); none: in memory only. */
  templateDir?: string | undefined;
  /** PostgreSQL's `shared_buffers` inside PGlite's WebAssembly memory, in MiB. */
  sharedBuffersMb?: number | undefined;
}

/** `shared_buffers` of PGlite unless told otherwise (MiB): PostgreSQL's default. */
export const PGLITE_SHARED_BUFFERS_MB = 128;

/** A new database starts from the copy of initdb's output; an existing folder is opened as it is. */
export async function openPglite(opts: PgliteOpenOptions): Promise<PGlite> {
  const { PGlite: pglite } = await import('@electric-sql/pglite');
  const dir = opts.dataDir ? path.resolve(opts.dataDir, 'pgdata') : undefined;
  // PGlite's own start parameters, and the buffers' size (a start parameter, not a file: PGlite
  // writes postgresql.conf whole when told any setting through it).
  const startParams = [
    ...pglite.defaultStartParams,
    '-c',
    `shared_buffers=${opts.sharedBuffersMb ?? PGLITE_SHARED_BUFFERS_MB}MB`,
  ];
  if (dir && !isNewDataDir(dir)) return pglite.create(dir, { startParams });
  if (dir) mkdirSync(dir, { recursive: true });
  try {
    const loadDataDir = await pgliteTemplate(() => pglite.create(), opts.templateDir);
    return dir
      ? await pglite.create(dir, { loadDataDir, startParams })
      : await pglite.create({ loadDataDir, startParams });
  } catch {
    // A copy PGlite cannot load: forget it, empty the folder again and run initdb as without one.
    forgetPgliteTemplate(opts.templateDir);
    if (dir) {
      rmSync(dir, { recursive: true, force: true });
      mkdirSync(dir, { recursive: true });
    }
  }
  return dir ? pglite.create(dir, { startParams }) : pglite.create({ startParams });
}
