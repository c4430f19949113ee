import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { openDatabase, PGLITE_SHARED_BUFFERS_MB } from './index';

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

const sharedBuffers = async (db: Awaited<ReturnType<typeof openDatabase>>) =>
  ((await db.db.execute(sql`show shared_buffers`)) as unknown as { rows: Array<{ shared_buffers: string }> }).rows[0]!
    .shared_buffers;

describe('PGlite shared_buffers', () => {
  it('is PostgreSQL’s 128 MB unless told otherwise, in a new database and in one opened again', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'kg-sb-'));
    dirs.push(dir);
    const first = await openDatabase({ dataDir: dir });
    expect(await sharedBuffers(first)).toBe(`${PGLITE_SHARED_BUFFERS_MB}MB`);
    await first.close();
    const again = await openDatabase({ dataDir: dir, sharedBuffersMb: 16 });
    expect(await sharedBuffers(again)).toBe('16MB');
    // PGlite's own start parameters are kept: the search path it sets among them.
    expect(
      ((await again.db.execute(sql`show search_path`)) as unknown as { rows: Array<{ search_path: string }> }).rows[0]!
        .search_path,
    ).toBe('public');
    await again.close();
  }, 60_000);
});
