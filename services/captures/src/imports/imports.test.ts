import { eq } from 'drizzle-orm';
import { describe, expect, it, vi } from 'vitest';
import { capturesApi, type Identity } from '@kg/contracts';
import { newId } from '@kg/db';
import { connectService } from '@kg/trpc';
import { claimNext } from '../store/imports';
import { imports as importsTable } from '../store/schema';
import { bob, FOLDERS, netscape, useImportsHarness } from './testing';

vi.setConfig({ testTimeout: 60_000 });

/** The bookmark import through the captures module: formats, duplicates, tenants, limits, the queue. */
const h = useImportsHarness();
const { gateway, runner, upload, capturesOf } = h;

describe('a bookmark import', () => {
  it('imports what it can from a malformed, truncated file: folders become tags, the rest is counted and reported by line', async () => {
    const before = h.queued.length;
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
    await h.module.flushEvents();
    // Each capture is queued for the pipeline exactly as POST /captures queues one.
    const events = h.queued.slice(before).filter((e) => made.some((c) => c.id === e.data.capture_id));
    expect(events.map((e) => e.type)).toEqual(['capture.queued', 'capture.queued', 'capture.queued']);
  });

  it('a re-import of the same file creates nothing: every address is a duplicate, the normalised form included', async () => {
    const api = connectService('gateway', 'captures', capturesApi, { kind: 'local', router: h.module.router }).as(bob);
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
    const open = await h.database.db.select().from(importsTable).where(eq(importsTable.status, 'uploading'));
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
    const first = await claimNext(h.database.db, now, later, 'r1');
    const second = await claimNext(h.database.db, now, later, 'r2');
    expect([first?.id, second?.id]).toEqual([a1.id, b1.id]);
    expect(await claimNext(h.database.db, now, later, 'r3')).toBeNull();
    // Its claim expired (the runner died): the same import is taken again, still before a2.
    const expired = new Date(later.getTime() + 1);
    expect((await claimNext(h.database.db, expired, new Date(expired.getTime() + 60_000), 'r4'))?.id).toBe(a1.id);
    expect(a2.status).toBe('queued');
  });
});
