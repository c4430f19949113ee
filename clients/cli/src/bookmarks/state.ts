import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';

export const Counts = z.object({
  imported: z.number().int().nonnegative(),
  duplicates: z.number().int().nonnegative(),
  skipped: z.record(z.string(), z.number().int().nonnegative()),
  failed: z.number().int().nonnegative(),
});
export type Counts = z.infer<typeof Counts>;

export const Failed = z.object({ place: z.string(), url: z.string().optional(), error: z.string() });
export type Failed = z.infer<typeof Failed>;

/** What an import has done so far, saved after every entry. */
const ImportState = z.object({
  version: z.literal(1),
  file_sha256: z.string(),
  base_url: z.string(),
  tenant_id: z.string(),
  /** Entries (bookmarks and unreadable ones) handled, in the file's order. */
  position: z.number().int().nonnegative(),
  counts: Counts,
  /** The first failures (at most MAX_KEPT), with their place in the file. */
  failures: z.array(Failed),
});
export type ImportState = z.infer<typeof ImportState>;

export const MAX_KEPT = 1000;

/** sha256 of a file, streamed. */
export async function sha256File(file: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/**
 * The state file of one import: `<config dir>/imports/<sha256 of the file's hash, the
 * server's URL and the tenant>.json`, so the same file imported into another server or
 * another account starts afresh. Written
 * whole to a temporary file and renamed (a kill never leaves half a state).
 */
export class StateFile {
  readonly path: string;
  readonly fileSha256: string;
  readonly baseUrl: string;
  readonly tenantId: string;
  constructor(configDir: string, fileSha256: string, baseUrl: string, tenantId: string) {
    this.fileSha256 = fileSha256;
    this.baseUrl = baseUrl;
    this.tenantId = tenantId;
    const key = createHash('sha256').update(`${fileSha256}\n${baseUrl}\n${tenantId}`).digest('hex');
    this.path = path.join(configDir, 'imports', `${key}.json`);
  }

  /** The saved state, or a fresh one (also when the file is unreadable or from another import). */
  async load(): Promise<ImportState> {
    const fresh: ImportState = {
      version: 1,
      file_sha256: this.fileSha256,
      base_url: this.baseUrl,
      tenant_id: this.tenantId,
      position: 0,
      counts: { imported: 0, duplicates: 0, skipped: {}, failed: 0 },
      failures: [],
    };
    try {
      const saved = ImportState.safeParse(JSON.parse(await readFile(this.path, 'utf8')));
      if (
        saved.success &&
        saved.data.file_sha256 === this.fileSha256 &&
        saved.data.base_url === this.baseUrl &&
        saved.data.tenant_id === this.tenantId
      )
        return saved.data;
    } catch {
      // none yet, or unreadable: start afresh (the duplicate check keeps a replay harmless)
    }
    return fresh;
  }

  async save(state: ImportState): Promise<void> {
    await mkdir(path.dirname(this.path), { recursive: true, mode: 0o700 });
    const tmp = `${this.path}.${process.pid}.tmp`;
    await writeFile(tmp, JSON.stringify(state), { mode: 0o600 });
    await rename(tmp, this.path);
  }

  /** The import finished: nothing to resume. */
  async clear(): Promise<void> {
    await rm(this.path, { force: true });
  }
}
