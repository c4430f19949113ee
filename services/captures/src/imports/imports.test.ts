import { createReadStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import v8 from 'node:v8';
import vm from 'node:vm';
import { and, eq, inArray } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { generateBookmarkFile } from '@kg/bookmarks/generate';
import { createFsBlobStore } from '@kg/blobs';
import { createMemoryBus, type MemoryBus } from '@kg/bus';
import { IMPORT_PART_BYTES, TOPICS, capturesApi, type CaptureEvent, type Identity } from '@kg/contracts';
import { newId, openDatabase, type Database } from '@kg/db';
import { createLogger } from '@kg/logger';
import { connectService } from '@kg/trpc';
import { capturesMigrations, createCapturesModule } from '../module';
import { claimNext } from '../store/imports';
import { imports as importsTable, items } from '../store/schema';
import type { ImportsContext } from './context';
import { createImportRunner, type RunnerOptions } from './runner';

vi.setConfig({ testTimeout: 60_000 });

const alice: Identity = { tenantId: newId('tenant'), subject: 'u1', credential: { kind: 'jwt', id: 'j1' } };
const bob: Identity = { tenantId: newId('tenant'), subject: 'u2', credential: { kind: 'jwt', id: 'j2' } };

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

/** A Netscape file of `n` bookmarks https://n.example/<prefix>/<i>. */
const netscape = (n: number, prefix: string) =>
  '<!DOCTYPE NETSCAPE-Bookmark-file-1>\n<DL><p>\n' +
  Array.from({ length: n }, (_, i) => `<DT><A HREF="https://n.example/${prefix}/${i}">Page ${i}</A>\n`).join('') +
  '</DL><p>\n';

const FOLDERS = `<!DOCTYPE NETSCAPE-Bookmark-file-1>
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

describe('a bookmark import', () => {
  it('imports what it can from a malformed, truncated file: folders become tags, the rest is counted and reported by line', async () => {
    const before = queued.length;
    const started = await upload(FOLDERS, { para: true });
    expect(started).toMatchObject({ status: 'queued', format: 'netscape-html', para: true, source: 'cli' });
    await runner().drain();
    const done = await gateway().get({ id: started.id });
    expect(done).toMatchObject({
      status: 'completed',
      counts: { seen: 8, created: 3, duplicates: 1, skipped: 3, invalid: 3 },
      progress: { bytes_read: Buffer.byteLength(FOLDERS), size_bytes: Buffer.byteLength(FOLDERS) },
      failure: null,
    });
    expect(done.finished_at).not.toBeNull();
    expect(done.errors).toEqual([
      { line: 15, reason: 'a link without an address (no HREF)' },
      { line: 19, reason: 'the address is not a valid http(s) URL' },
      { line: 20, reason: 'the file ends inside a tag (truncated)' },
    ]);
    const made = await capturesOf(started.id);
    expect(made.map((c) => [c.url, c.title, c.contentType, c.source, c.status])).toEqual([
      ['https://folders.example/a', 'Node & npm', 'article', 'cli', 'pending'],
      ['https://folders.example/b', 'https://folders.example/b', 'article', 'cli', 'pending'],
      ['https://github.com/nodejs/node', 'Node repo', 'repo', 'cli', 'pending'],
    ]);
    expect(made[0]!.why).toBeNull();
    expect(made[0]!.metadata).toEqual({
      import: {
        import_id: started.id,
        folder: ['Dev', 'JS'],
        tags: ['Dev', 'JS', 'node', 'js'],
        added_at: '2019-03-04T12:00:00.000Z',
        note: 'Read later',
        para: true,
      },
    });
    expect(made[1]!.metadata).toMatchObject({ import: { folder: ['Dev'], note: null, added_at: null } });
    await module.flushEvents();
    // Each capture is queued for the pipeline exactly as POST /captures queues one.
    const events = queued.slice(before).filter((e) => made.some((c) => c.id === e.data.capture_id));
    expect(events.map((e) => e.type)).toEqual(['capture.queued', 'capture.queued', 'capture.queued']);
  });

  it('a re-import of the same file creates nothing: every address is a duplicate, the normalised form included', async () => {
    const api = connectService('gateway', 'captures', capturesApi, { kind: 'local', router: module.router }).as(bob);
    await api.create({ title: 'x', url: 'https://dup.example/Path', content_type: 'article', source: 'api' });
    const file = netscape(25, 'again') + '<DT><A HREF="HTTPS://DUP.EXAMPLE/Path">Shouting</A>\n';
    const first = await upload(file, { who: bob });
    await runner().drain();
    expect((await gateway(bob).get({ id: first.id })).counts).toEqual({
      seen: 26,
      created: 25,
      duplicates: 1,
      skipped: 0,
      invalid: 0,
    });
    const second = await upload(file, { who: bob });
    await runner().drain();
    expect((await gateway(bob).get({ id: second.id })).counts).toEqual({
      seen: 26,
      created: 0,
      duplicates: 26,
      skipped: 0,
      invalid: 0,
    });
    expect(await capturesOf(second.id)).toEqual([]);
  });

  it('Pocket CSV and Karakeep JSON are detected; a CSV cut inside a quoted cell reports the line', async () => {
    const csv = await upload(
      'title,url,time_added,tags,status\nA,https://csv.example/a,1700000000,x|y,unread\n"B,https://csv.example/b\n',
    );
    expect(csv.format).toBe('pocket-csv');
    await runner().drain();
    const c = await gateway().get({ id: csv.id });
    expect(c.counts).toMatchObject({ seen: 1, created: 1, invalid: 1 });
    expect(c.errors[0]!.line).toBe(3);
    const [made] = await capturesOf(csv.id);
    expect(made!.metadata).toMatchObject({ import: { tags: ['x', 'y'], added_at: '2023-11-14T22:13:20.000Z' } });
    const json = await upload(
      '{"bookmarks":[{"createdAt":1700000000,"title":"K","tags":["t"],"content":{"type":"link","url":"https://json.example/k"},"note":"n"}',
    );
    expect(json.format).toBe('karakeep-json');
    await runner().drain();
    expect((await gateway().get({ id: json.id })).counts).toMatchObject({ seen: 1, created: 1, invalid: 1 });
  });

  it('an empty file, and a file of none of the three formats, are refused (400) and leave nothing', async () => {
    await expect(upload('')).rejects.toMatchObject({ data: { code: 'BAD_REQUEST' } });
    await expect(upload('just some words\nand more\n')).rejects.toMatchObject({
      data: { code: 'BAD_REQUEST', problem: { errors: [{ path: 'file' }, { path: 'format' }] } },
    });
    const open = await database.db.select().from(importsTable).where(eq(importsTable.status, 'uploading'));
    expect(open).toEqual([]);
  });

  it('a file over IMPORT_MAX_BYTES is refused (413) by the service too', async () => {
    const api = gateway();
    const { id } = await api.open({});
    await expect(
      api.start({ id, filename: 'x', size_bytes: 100 * 1024 * 1024 + 1, parts: 0, para: false, source: 'api' }),
    ).rejects.toMatchObject({ data: { code: 'PAYLOAD_TOO_LARGE' } });
  });

  it("another tenant's import is not found on every operation", async () => {
    const mine = await upload(netscape(2, 'mine'));
    const { id: uploading } = await gateway().open({});
    for (const id of [mine.id, uploading]) {
      await expect(gateway(bob).get({ id })).rejects.toMatchObject({ data: { code: 'NOT_FOUND' } });
      await expect(gateway(bob).cancel({ id })).rejects.toMatchObject({ data: { code: 'NOT_FOUND' } });
      await expect(gateway(bob).putPart({ id, part: 0, bytes_base64: 'eA==' })).rejects.toMatchObject({
        data: { code: 'NOT_FOUND' },
      });
      await expect(
        gateway(bob).start({ id, filename: 'x', size_bytes: 1, parts: 1, para: false, source: 'api' }),
      ).rejects.toMatchObject({ data: { code: 'NOT_FOUND' } });
      await expect(gateway(bob).abort({ id })).rejects.toMatchObject({ data: { code: 'NOT_FOUND' } });
    }
    expect((await gateway(bob).list({ page: 1, per_page: 100 })).data.map((i) => i.id)).not.toContain(mine.id);
    // An upload in progress is not shown to its own tenant either.
    await expect(gateway().get({ id: uploading })).rejects.toMatchObject({ data: { code: 'NOT_FOUND' } });
    expect((await gateway().abort({ id: uploading })).aborted).toBe(true);
    await expect(gateway().get({ id: 'imp_nope' })).rejects.toMatchObject({ data: { code: 'NOT_FOUND' } });
  });

  it('cancel stops a queued import; a second cancel, or one of a finished import, is 409', async () => {
    const started = await upload(netscape(3, 'cancel'));
    expect((await gateway().cancel({ id: started.id })).status).toBe('cancelled');
    await expect(gateway().cancel({ id: started.id })).rejects.toMatchObject({ data: { code: 'CONFLICT' } });
    await runner().drain();
    expect(await capturesOf(started.id)).toEqual([]);
    const done = await upload(netscape(1, 'finished'));
    await runner().drain();
    await expect(gateway().cancel({ id: done.id })).rejects.toMatchObject({ data: { code: 'CONFLICT' } });
  });

  it('past IMPORT_MAX_ACTIVE imports queued or uploading, a tenant is refused (429 with Retry-After)', async () => {
    const carol: Identity = { tenantId: newId('tenant'), subject: 'u3', credential: { kind: 'jwt', id: 'j3' } };
    const ids = await Promise.all(
      Array.from({ length: 8 }, () =>
        gateway(carol)
          .open({})
          .catch((e: unknown) => e),
      ),
    );
    const refused = ids.filter((r) => !(r as { id?: string }).id);
    expect(refused).toHaveLength(3);
    expect(refused[0]).toMatchObject({ data: { code: 'TOO_MANY_REQUESTS', problem: { retryAfterSeconds: 60 } } });
    for (const r of ids) if ((r as { id?: string }).id) await gateway(carol).abort({ id: (r as { id: string }).id });
    await expect(gateway(carol).open({})).resolves.toHaveProperty('id');
  });

  it('one import runs per tenant at a time, in the order they were queued; other tenants are not held up', async () => {
    const a1 = await upload(netscape(1, 'order1'));
    const a2 = await upload(netscape(1, 'order2'));
    const b1 = await upload(netscape(1, 'order3'), { who: bob });
    const now = new Date();
    const later = new Date(now.getTime() + 60_000);
    const first = await claimNext(database.db, now, later, 'r1');
    const second = await claimNext(database.db, now, later, 'r2');
    expect([first?.id, second?.id]).toEqual([a1.id, b1.id]);
    expect(await claimNext(database.db, now, later, 'r3')).toBeNull();
    // Its claim expired (the runner died): the same import is taken again, still before a2.
    const expired = new Date(later.getTime() + 1);
    expect((await claimNext(database.db, expired, new Date(expired.getTime() + 60_000), 'r4'))?.id).toBe(a1.id);
    expect(a2.status).toBe('queued');
  });
});

describe('resume: a runner stopped or killed between batches', () => {
  /** Each of the file's addresses is captured exactly once. */
  async function exactlyOnce(importId: string, prefix: string, n: number) {
    const made = await capturesOf(importId);
    expect(made).toHaveLength(n);
    for (let i = 0; i < n; i += 7) expect(await countUrl(alice.tenantId, `https://n.example/${prefix}/${i}`)).toBe(1);
    expect(new Set(made.map((c) => c.url)).size).toBe(n);
  }

  it('stopped after a batch: the next runner goes on after the last committed batch', async () => {
    const started = await upload(netscape(45, 'stop'));
    const first = runner({}, { afterBatch: (n) => (n === 2 ? void first.stop() : undefined) });
    await first.drain();
    const paused = await gateway().get({ id: started.id });
    expect(paused.status).toBe('running');
    expect(paused.counts.created).toBe(20);
    await runner().drain();
    const done = await gateway().get({ id: started.id });
    expect(done).toMatchObject({ status: 'completed', counts: { seen: 45, created: 45, duplicates: 0 } });
    await exactlyOnce(started.id, 'stop', 45);
  });

  it('killed mid-import (it stalls holding its claim): after the claim expires another runner finishes, and the dead one can no longer write', async () => {
    const started = await upload(netscape(45, 'kill'));
    let wakeDead: () => void = () => undefined;
    const dead = runner(
      {},
      { afterBatch: (n) => (n === 2 ? new Promise<void>((resume) => (wakeDead = resume)) : undefined) },
    );
    const deadRun = dead.drain();
    await vi.waitFor(async () => expect((await gateway().get({ id: started.id })).counts.created).toBe(20));
    // Not claimable while the claim holds.
    expect(await runner().drain()).toBe(0);
    clock = 31_000;
    expect(await runner().drain()).toBe(1);
    expect(await gateway().get({ id: started.id })).toMatchObject({ status: 'completed', counts: { created: 45 } });
    // The stalled runner wakes up: its next batch is refused (it no longer holds the import) and rolled back.
    wakeDead();
    await deadRun;
    await exactlyOnce(started.id, 'kill', 45);
    expect((await gateway().get({ id: started.id })).counts).toMatchObject({ seen: 45, created: 45, duplicates: 0 });
  });

  it('a cancel while running stops it at the next batch; the captures made stay', async () => {
    const started = await upload(netscape(45, 'cancelrun'));
    const r = runner({}, { afterBatch: async (n) => void (n === 1 && (await gateway().cancel({ id: started.id }))) });
    await r.drain();
    const after = await gateway().get({ id: started.id });
    expect(after.status).toBe('cancelled');
    expect(await capturesOf(started.id)).toHaveLength(10);
  });
});

describe('admission', () => {
  it('adds captures only while fewer than IMPORT_MAX_IN_FLIGHT of them are pending or processing', async () => {
    const started = await upload(netscape(50, 'drip'));
    const r = runner({ maxInFlight: 20 });
    const run = r.drain();
    await vi.waitFor(async () => expect((await gateway().get({ id: started.id })).counts.created).toBe(20));
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect((await gateway().get({ id: started.id })).counts.created).toBe(20);
    // The pipeline finishes them: the import goes on, 20 at most in flight at any time.
    for (let round = 0; round < 3; round++) {
      await database.db
        .update(items)
        .set({ status: 'processed' })
        .where(and(eq(items.importId, started.id), inArray(items.status, ['pending', 'processing'])));
      await vi.waitFor(async () =>
        expect((await gateway().get({ id: started.id })).counts.created).toBe(Math.min(50, 20 * (round + 2))),
      );
    }
    await run;
    expect((await gateway().get({ id: started.id })).status).toBe('completed');
  });
});

describe('a huge file', () => {
  // Storing, then reading and parsing 100 MB on a shared two-core machine takes a while.
  it(
    '100 MB streams through the runner in bounded memory; javascript: addresses are skipped and counted',
    { timeout: 300_000 },
    async () => {
      v8.setFlagsFromString('--expose-gc');
      const gc = vm.runInNewContext('gc') as () => void;
      const file = path.join(dir, 'huge.html');
      const count = await generateBookmarkFile(
        file,
        // 100 MB, just under the default IMPORT_MAX_BYTES (100 MiB).
        100_000_000,
        '<!DOCTYPE NETSCAPE-Bookmark-file-1>\n<DL><p>\n<DT><H3>Folder</H3>\n<DL><p>\n',
        (i) =>
          i % 20_000 === 0
            ? `<DT><A HREF="https://huge.example/${i}" ADD_DATE="1550000000">Page ${i}</A>\n`
            : `<DT><A HREF="javascript:void(${i})" ADD_DATE="1550000000">Bookmarklet ${i} &amp; more</A>\n<DD>A note ${i}\n`,
        '</DL><p>\n</DL><p>\n',
      );
      const started = await upload(createReadStream(file, { highWaterMark: 1024 * 1024 }) as AsyncIterable<Buffer>);
      expect(started.size_bytes).toBeGreaterThanOrEqual(100_000_000);
      gc();
      const base = process.memoryUsage().heapUsed;
      let peak = 0;
      const sampler = setInterval(() => {
        gc();
        peak = Math.max(peak, process.memoryUsage().heapUsed - base);
      }, 250);
      try {
        await runner({ batchSize: 100 }).drain();
      } finally {
        clearInterval(sampler);
      }
      const done = await gateway().get({ id: started.id });
      const real = Math.ceil(count / 20_000);
      expect(done.status).toBe('completed');
      expect(done.counts).toEqual({ seen: count, created: real, duplicates: 0, skipped: count - real, invalid: 0 });
      expect(done.progress.bytes_read).toBe(started.size_bytes);
      // Held whole, the file would take 100 MB or more of heap (200 MB as a JS string).
      expect(peak / 1024 / 1024).toBeLessThan(48);
    },
  );
});
