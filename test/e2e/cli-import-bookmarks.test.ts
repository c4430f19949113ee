import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { KG, ROOT, cliUser, kg } from './support/cli';

// Each step is a kg process (a second or more on a loaded machine) following a server-side import.
vi.setConfig({ testTimeout: 180_000 });

let config: string;
let otherConfig: string;
let site: Server;
let siteUrl = '';
let dir: string;
const run = (args: string[], as = config) => kg(args, { config: as, timeoutMs: 150_000 });

interface Listed {
  url: string | null;
  title: string;
  why: string | null;
  source: string;
  content_type: string;
  metadata: Record<string, unknown>;
}
const captures = async (): Promise<Listed[]> =>
  ((await run(['captures', 'list', '--per-page', '100', '--json'])).json() as { data: Listed[] }).data;

/** A browser export with folders, a bookmark twice, a bookmarklet and an entry with no address (line 13): 4 bookmarks read (the broken entry is counted as invalid only). */
const exportFile = () =>
  [
    '<!DOCTYPE NETSCAPE-Bookmark-file-1>',
    '<TITLE>Bookmarks</TITLE>',
    '<DL><p>',
    '  <DT><H3>Reading &amp; Notes</H3>',
    '  <DL><p>',
    `    <DT><A HREF="${siteUrl}/essay" ADD_DATE="1550000000" TAGS="habits">An essay &amp; its &lt;notes&gt;</A>`,
    '    <DD>Read twice',
    '    <DT><H3>Video</H3>',
    '    <DL><p>',
    `      <DT><A HREF="${siteUrl}/talk">A talk</A>`,
    '    </DL><p>',
    '  </DL><p>',
    '  <DT><A>no address</A>',
    '  <DT><A HREF="javascript:alert(document.cookie)">bookmarklet</A>',
    `  <DT><A HREF="${siteUrl}/essay">The essay again</A>`,
    '</DL><p>',
  ].join('\n') + '\n';

beforeAll(async () => {
  [{ config }, { config: otherConfig }] = await Promise.all([cliUser('bookmarks'), cliUser('bookmarks-other')]);
  dir = mkdtempSync(path.join(tmpdir(), 'kg-bookmarks-e2e-'));
  site = createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(`<!doctype html><title>Page ${req.url}</title><article><p>Bookmarked page ${req.url}.</p></article>`);
  });
  await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
  siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => site.close(() => r())));

describe('kg import-bookmarks (POST /imports, followed to its end)', () => {
  let firstId = '';

  it('--para --json: uploads, follows to completed and prints the import: folders kept, the duplicate, the bookmarklet and the broken line counted', async () => {
    const file = path.join(dir, 'bookmarks.html');
    writeFileSync(file, exportFile());
    const first = await run(['import-bookmarks', file, '--para', '--json']);
    expect(first.code, first.stderr).toBe(0);
    const imp = first.json();
    firstId = imp.id;
    expect(imp).toMatchObject({
      id: expect.stringMatching(/^imp_/),
      status: 'completed',
      format: 'netscape-html',
      filename: 'bookmarks.html',
      para: true,
      source: 'cli',
      counts: { seen: 4, created: 2, duplicates: 1, skipped: 1, invalid: 1 },
      errors: [{ line: 13, reason: expect.stringContaining('no HREF') }],
      failure: null,
    });
    expect(imp.progress.bytes_read).toBe(imp.size_bytes);

    const listed = (await captures()).filter(
      (c) => (c.metadata['import'] as { import_id?: string } | undefined)?.import_id === imp.id,
    );
    expect(listed.map((c) => c.url).sort()).toEqual([`${siteUrl}/essay`, `${siteUrl}/talk`]);
    expect(listed.find((c) => c.url === `${siteUrl}/essay`)).toMatchObject({
      title: 'An essay & its <notes>',
      source: 'cli',
      metadata: {
        import: {
          folder: ['Reading & Notes'],
          tags: ['Reading & Notes', 'habits'],
          added_at: '2019-02-12T19:33:20.000Z',
          note: 'Read twice',
          para: true,
        },
      },
    });
    expect(listed.find((c) => c.url === `${siteUrl}/talk`)!.metadata['import']).toMatchObject({
      folder: ['Reading & Notes', 'Video'],
    });
  });

  it('plain output (not a terminal): progress lines, the counts, the broken entry by line; run again it creates nothing', async () => {
    const again = await run(['import-bookmarks', path.join(dir, 'bookmarks.html')]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toMatch(/Uploaded bookmarks\.html \(\d+(\.\d)? (B|KiB)\): import imp_\S+ (queued|running)/);
    expect(again.stderr).toMatch(
      /imp_\S+ completed 100% .* · 4 read · 0 created · 3 duplicates · 1 skipped · 1 invalid/,
    );
    expect(again.stderr).toContain('invalid line 13: ');
    expect(again.stdout).toMatch(/status\s+completed/);
    expect(again.stdout).toMatch(/created\s+0\n/);
    expect(again.stdout).toMatch(/duplicates\s+3\n/);
    // No bookmark was captured twice.
    const urls = (await captures()).map((c) => c.url).filter((u) => u?.startsWith(siteUrl));
    expect(urls.sort()).toEqual([`${siteUrl}/essay`, `${siteUrl}/talk`]);
  });

  it('on a terminal: an upload bar, then a bar of the file read by the server with the counts, reaching 100%', async () => {
    // util-linux's `script` gives kg a terminal (stdin, stdout and stderr) and copies what it draws.
    const file = path.join(dir, 'bookmarks.html');
    const drawn = await new Promise<{ code: number | null; out: string }>((resolve, reject) => {
      const child = spawn('script', ['-qec', `'${KG}' import-bookmarks '${file}'`, '/dev/null'], {
        cwd: ROOT,
        env: {
          PATH: process.env['PATH'] ?? '',
          HOME: process.env['HOME'] ?? '',
          TERM: 'xterm',
          SVC_API_URL: `${inject('baseUrl')}/api/v1`,
          KG_CONFIG_DIR: config,
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let out = '';
      child.stdout.on('data', (d: Buffer) => (out += d.toString()));
      child.stderr.on('data', (d: Buffer) => (out += d.toString()));
      child.on('error', reject);
      child.on('close', (code) => resolve({ code, out }));
    });
    const text = drawn.out.replace(/\u001b\[[0-9;?]*[A-Za-z]/g, '');
    expect(drawn.code, text).toBe(0);
    expect(text).toMatch(/Uploading bookmarks\.html .* 100% · \d+\/\d+ bytes/);
    expect(text).toMatch(
      /Importing bookmarks\.html .* 100% · \d+ B of \d+ B · 0 created · 3 duplicates · 1 skipped · 1 invalid · completed/,
    );
    expect(text).toMatch(/status\s+completed/);
    expect(text).toContain('invalid line 13: ');
  });

  it('--no-wait prints the id; `kg imports show --follow`, `list`, and `cancel` of a finished import (exit 1, 409)', async () => {
    const file = path.join(dir, 'pocket.csv');
    const rows = Array.from({ length: 3 }, (_, i) => `"Row ${i}, quoted",${siteUrl}/row-${i},1700000000,a|b,unread`);
    writeFileSync(file, ['title,url,time_added,tags,status', ...rows].join('\n') + '\n');
    const started = await run(['import-bookmarks', file, '--no-wait', '--format', 'pocket-csv']);
    expect(started.code, started.stderr).toBe(0);
    const id = started.stdout.trim();
    expect(id).toMatch(/^imp_\S+$/);
    expect(started.stderr).toContain(`kg imports show ${id} --follow`);

    const followed = await run(['imports', 'show', id, '--follow', '--json']);
    expect(followed.code, followed.stderr).toBe(0);
    expect(followed.json()).toMatchObject({
      id,
      status: 'completed',
      format: 'pocket-csv',
      counts: { seen: 3, created: 3, duplicates: 0, skipped: 0, invalid: 0 },
    });

    const list = await run(['imports', 'list', '--json']);
    // Newest first: this one, the terminal's and the plain re-runs, the first.
    const ids = list.json().data.map((i: { id: string }) => i.id);
    expect(ids).toHaveLength(4);
    expect([ids[0], ids[3]]).toEqual([id, firstId]);
    const table = await run(['imports', 'list']);
    expect(table.stdout).toContain(id);
    expect(table.stdout).toMatch(/STATUS\s+FILE/);

    const cancel = await run(['imports', 'cancel', id]);
    expect(cancel.code).toBe(1);
    expect(cancel.stderr).toMatch(/Error: .*\(HTTP 409\)/);
  });

  it("another tenant's import id is not found (exit 4) on show, --follow and cancel, and not listed", async () => {
    for (const args of [
      ['imports', 'show', firstId],
      ['imports', 'show', firstId, '--follow'],
      ['imports', 'cancel', firstId],
    ]) {
      const other = await run(args, otherConfig);
      expect(other.code, `${args.join(' ')}: ${other.stderr}`).toBe(4);
      expect(other.stderr).toMatch(/Error: .*\(HTTP 404\)/);
      expect(other.stderr).not.toMatch(/\n\s+at /);
    }
    expect((await run(['imports', 'list', '--json'], otherConfig)).json().total).toBe(0);
  });

  it('Ctrl-C while following leaves the import running in the server and says how to follow it again; it can be cancelled', async () => {
    // 1,500 bookmarks of one unreachable host: the server drips them into the pipeline (a few
    // hundred in flight at most, one host's fetches spaced out), so the import runs for a while.
    const file = path.join(dir, 'many.html');
    const lines = Array.from(
      { length: 1500 },
      (_, i) => `<DT><A HREF="https://bookmarks.invalid/many/${i}">Many ${i}</A>`,
    );
    writeFileSync(file, `<!DOCTYPE NETSCAPE-Bookmark-file-1>\n<DL><p>\n${lines.join('\n')}\n</DL><p>\n`);
    const { code, stderr } = await new Promise<{ code: number | null; stderr: string }>((resolve, reject) => {
      const child = spawn(KG, ['import-bookmarks', file], {
        cwd: ROOT,
        env: {
          PATH: process.env['PATH'] ?? '',
          HOME: process.env['HOME'] ?? '',
          SVC_API_URL: `${inject('baseUrl')}/api/v1`,
          KG_CONFIG_DIR: config,
        },
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      let err = '';
      let sent = false;
      child.stderr.on('data', (d: Buffer) => {
        err += d.toString();
        // The first progress line (after the upload's): the import is being followed.
        if (!sent && /\nimp_\S+ (queued|running) /.test(err)) {
          sent = true;
          child.kill('SIGINT');
        }
      });
      child.on('error', reject);
      child.on('close', (c) => resolve({ code: c, stderr: err }));
    });
    expect(code, stderr).toBe(130);
    const id = /import (imp_\S+)/.exec(stderr)![1]!;
    expect(stderr).toContain(`Stopped following import ${id}`);
    expect(stderr).toContain(`kg imports show ${id} --follow`);
    expect(stderr).not.toMatch(/\n\s+at /);

    const still = (await run(['imports', 'show', id, '--json'])).json();
    expect(['queued', 'running']).toContain(still.status);
    const cancelled = await run(['imports', 'cancel', id]);
    expect(cancelled.code, cancelled.stderr).toBe(0);
    expect(cancelled.stdout.trim()).toBe(id);
    expect(cancelled.stderr).toContain('cancelled');
    const after = (await run(['imports', 'show', id, '--json'])).json();
    expect(after.status).toBe('cancelled');
    expect(after.counts.created).toBeLessThan(1500);
  });
});
