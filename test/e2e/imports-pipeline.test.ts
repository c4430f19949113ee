import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { CaptureList, Import, Node, ParaItem, type Capture } from '@kg/contracts';
import { api, conforms, newTenant, type Session } from './support/client';

/**
 * What the ingest pipeline makes of imported bookmarks, through the public API: a bookmark
 * file with folders, tags, dates and notes, imported with `para`, its pages served on
 * loopback (the servers under test allowlist 127.0.0.1 for fetching).
 */
let s: Session;
let page: http.Server;
let base: string;
beforeAll(async () => {
  s = await newTenant('imports-pipeline');
  page = http.createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(
      `<!doctype html><html><head><title>Page ${req.url}</title></head><body><article><h1>Vacuum</h1>` +
        '<p>Postgres keeps old row versions until vacuum removes the ones no transaction can see.</p>' +
        '<p>Autovacuum runs in the background and keeps tables from bloating.</p></article></body></html>',
    );
  });
  await new Promise<void>((r) => page.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(page.address() as AddressInfo).port}`;
});
afterAll(() => new Promise((r) => page.close(r)));

const file = () => `<!DOCTYPE NETSCAPE-Bookmark-file-1>
<META HTTP-EQUIV="Content-Type" CONTENT="text/html; charset=UTF-8">
<TITLE>Bookmarks</TITLE>
<H1>Bookmarks</H1>
<DL><p>
  <DT><H3>Tech</H3>
  <DL><p>
    <DT><H3>Databases</H3>
    <DL><p>
      <DT><A HREF="${base}/vacuum" ADD_DATE="1551700800" TAGS="Postgres,ops">Vacuum explained</A>
      <DD>Read the MVCC part again
      <DT><A HREF="${base}/autovacuum">Autovacuum</A>
    </DL><p>
  </DL><p>
</DL><p>
`;

async function until<T>(what: string, probe: () => Promise<T | null>, ms = 120_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const got = await probe();
    if (got !== null) return got;
    if (Date.now() > end) throw new Error(`${what}: not yet after ${ms} ms`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

describe('imported bookmarks through the pipeline', () => {
  it('nodes carry the tags, date, folder and note, and sit in one PARA resource named after the folder', async () => {
    const form = new FormData();
    form.append('para', 'true');
    form.append('file', new Blob([file()], { type: 'text/html' }), 'bookmarks.html');
    const res = await fetch(`${inject('baseUrl')}/api/v1/imports`, {
      method: 'POST',
      headers: { authorization: s.bearer },
      body: form,
    });
    expect(res.status).toBe(202);
    const { id } = conforms(Import, await res.json());
    await until('import finished', async () => {
      const imp = conforms(Import, (await api('GET', `/imports/${id}`, { auth: s.bearer })).body);
      return ['completed', 'failed', 'cancelled'].includes(imp.status) ? imp : null;
    });
    // Both captures processed (the pipeline fetched both pages of the one host, politely).
    const captures = await until('captures processed', async () => {
      const list = conforms(CaptureList, (await api('GET', '/captures', { auth: s.bearer })).body);
      const done = list.data.filter((c) => c.status === 'processed');
      return done.length === 2 ? done : null;
    });
    const nodes = await Promise.all(
      captures.map(async (c: Capture) =>
        conforms(Node, (await api('GET', `/nodes/${c.node_ids[0]}`, { auth: s.bearer })).body),
      ),
    );
    const vacuum = nodes.find((n) => n.title === 'Vacuum explained')!;
    expect(vacuum.tags.slice(0, 4)).toEqual(['Tech', 'Databases', 'Postgres', 'ops']);
    expect(vacuum.tags.filter((t) => t.toLowerCase() === 'postgres')).toHaveLength(1);
    expect(vacuum.body_markdown).toContain(
      '## Bookmark\n\n- Added: 2019-03-04T12:00:00.000Z\n- Folder: Tech / Databases',
    );
    expect(vacuum.body_markdown).toContain('### Note\n\nRead the MVCC part again');

    // One PARA resource for the folder, both nodes assigned to it by the import.
    const itemIds = new Set(nodes.flatMap((n) => n.para_item_ids));
    expect(itemIds.size).toBe(1);
    for (const n of nodes)
      expect(n.para_assignments).toMatchObject([{ state: 'active', assigned_by: 'system:import', score: null }]);
    const item = conforms(ParaItem, (await api('GET', `/para/${[...itemIds][0]}`, { auth: s.bearer })).body);
    expect(item).toMatchObject({ category: 'resources', label: 'Databases', status: 'active' });
  }, 180_000);
});
