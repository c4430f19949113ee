import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { and, eq, inArray } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { createFsBlobStore } from '@kg/blobs';
import { createMemoryBus, type MemoryBus } from '@kg/bus';
import { IMPORT_PART_BYTES, TOPICS, capturesApi, type CaptureEvent, type Identity } from '@kg/contracts';
import { newId, openDatabase, type Database } from '@kg/db';
import { createLogger } from '@kg/logger';
import { connectService } from '@kg/trpc';
import { capturesMigrations, createCapturesModule } from '../module';
import { imports as importsTable, items } from '../store/schema';
import type { ImportsContext } from './context';
import { createImportRunner, type RunnerOptions } from './runner';

export const alice: Identity = { tenantId: newId('tenant'), subject: 'u1', credential: { kind: 'jwt', id: 'j1' } };
export const bob: Identity = { tenantId: newId('tenant'), subject: 'u2', credential: { kind: 'jwt', id: 'j2' } };

/**
 * The imports' test harness (imports.test.ts, imports-resume.test.ts, imports-huge.test.ts): a
 * captures module on its own in-memory database and memory bus, made before the file's tests
 * and closed after them; each test starts with no import in line and the runners' clock at 0.
 */
export function useImportsHarness() {
  let database: Database;
  let bus: MemoryBus;
  let dir: string;
  let module: Awaited<ReturnType<typeof createCapturesModule>>;
  const queued: CaptureEvent[] = [];
  /** The runners' clock: moved forward to let a claim expire. */
  let clock = 0;

  beforeAll(async () => {
    database = await openDatabase({ dataDir: null });
    await database.migrate(capturesMigrations);
    dir = await mkdtemp(path.join(tmpdir(), 'kg-imports-'));
    const logger = createLogger('captures', 'silent');
    bus = createMemoryBus(logger);
    await bus.subscribe({ topic: TOPICS.captures, group: 'test', handler: async (e) => void queued.push(e) });
    await bus.start();
    module = await createCapturesModule({ database, bus, blobs: createFsBlobStore(dir), logger });
  }, 180_000);
  afterAll(async () => {
    await bus.stop();
    await database.close();
    await rm(dir, { recursive: true, force: true });
  });
  beforeEach(async () => {
    clock = 0;
    // Each test starts with no import in line (a tenant runs one at a time).
    await database.db
      .update(importsTable)
      .set({ status: 'cancelled' })
      .where(inArray(importsTable.status, ['queued', 'running']));
  });

  const gateway = (who: Identity = alice) =>
    connectService('gateway', 'captures', capturesApi, { kind: 'local', router: module.router }).as(who).imports;

  /** The module's imports context with small batches, a short lease and a clock the test moves. */
  const context = (over: Partial<ImportsContext> = {}): ImportsContext => ({
    ...module.imports,
    captures: { ...module.ctx, now: () => new Date(Date.now() + clock) },
    batchSize: 10,
    maxInFlight: 10_000,
    leaseMs: 30_000,
    ...over,
  });
  const runner = (over: Partial<ImportsContext> = {}, options: RunnerOptions = {}) =>
    createImportRunner(context(over), { admissionPollMs: 20, idlePollMs: 50, ...options });

  /** Uploads `content` as the gateway does (parts of 4 MiB) and starts the import. */
  async function upload(
    content: string | Buffer | AsyncIterable<Buffer>,
    opts: { who?: Identity; format?: 'netscape-html' | 'pocket-csv' | 'karakeep-json'; para?: boolean } = {},
  ) {
    const api = gateway(opts.who);
    const { id } = await api.open({});
    let parts = 0;
    let size = 0;
    const chunks = typeof content === 'string' || Buffer.isBuffer(content) ? [Buffer.from(content)] : content;
    let pending = Buffer.alloc(0);
    const put = async (bytes: Buffer) => {
      await api.putPart({ id, part: parts++, bytes_base64: bytes.toString('base64') });
    };
    for await (const chunk of chunks) {
      size += chunk.length;
      pending = Buffer.concat([pending, chunk]);
      while (pending.length >= IMPORT_PART_BYTES) {
        await put(pending.subarray(0, IMPORT_PART_BYTES));
        pending = pending.subarray(IMPORT_PART_BYTES);
      }
    }
    if (pending.length) await put(pending);
    return api.start({
      id,
      filename: 'bookmarks.html',
      size_bytes: size,
      parts,
      para: opts.para ?? false,
      source: 'cli',
      ...(opts.format ? { format: opts.format } : {}),
    });
  }

  const capturesOf = (importId: string) =>
    database.db.select().from(items).where(eq(items.importId, importId)).orderBy(items.createdAt, items.id);
  const countUrl = async (tenantId: string, url: string) =>
    (
      await database.db
        .select()
        .from(items)
        .where(and(eq(items.tenantId, tenantId), eq(items.url, url)))
    ).length;

  return {
    get database() {
      return database;
    },
    get module() {
      return module;
    },
    get dir() {
      return dir;
    },
    /** capture.queued events published so far. */
    queued,
    /** Moves the runners' clock (to let a claim expire). */
    setClock: (ms: number) => void (clock = ms),
    gateway,
    context,
    runner,
    upload,
    capturesOf,
    countUrl,
  };
}

/** A Netscape file of `n` bookmarks https://n.example/<prefix>/<i>. */
export const netscape = (n: number, prefix: string) =>
  '<!DOCTYPE NETSCAPE-Bookmark-file-1>\n<DL><p>\n' +
  Array.from({ length: n }, (_, i) => `<DT><A HREF="https://n.example/${prefix}/${i}">Page ${i}</A>\n`).join('') +
  '</DL><p>\n';

export const FOLDERS = `<!DOCTYPE NETSCAPE-Bookmark-file-1>
<TITLE>Bookmarks</TITLE>
<DL><p>
  <DT><H3>Dev</H3>
  <DL><p>
    <DT><H3>JS</H3>
    <DL><p>
      <DT><A HREF="https://folders.example/a" ADD_DATE="1551700800" TAGS="node, js">Node &amp; npm</A>
      <DD>Read later
    </DL><p>
    <DT><A HREF="https://folders.example/b">  </A>
    <DT><A HREF="javascript:alert(1)">Bookmarklet</A>
    <DT><A HREF="data:text/html,hi">Data</A>
    <DT><A HREF="file:///etc/passwd">File</A>
    <DT><A>No address</A>
    <DT><A HREF="https://folders.example/a">Again</A>
  </DL><p>
  <DT><A HREF="https://github.com/nodejs/node">Node repo</A>
  <DT><A HREF="http://">No host</A>
  <DT><A HREF="https://folders.example/cut`;
