import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { KG, ROOT, cliUser, kg } from './support/cli';

// Each step is a kg process (a second or more on a loaded machine).
vi.setConfig({ testTimeout: 120_000 });

let config: string;
let site: Server;
let siteUrl = '';
let dir: string;
const run = (args: string[]) => kg(args, { config, timeoutMs: 90_000 });

interface Listed {
  url: string | null;
  title: string;
  why: string | null;
  source: string;
  content_type: string;
}
const captures = async (): Promise<Listed[]> =>
  ((await run(['captures', 'list', '--per-page', '100', '--json'])).json() as { data: Listed[] }).data;

beforeAll(async () => {
  ({ config } = await cliUser('bookmarks'));
  dir = mkdtempSync(path.join(tmpdir(), 'kg-bookmarks-e2e-'));
  site = createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(`<!doctype html><title>Page ${req.url}</title><article><p>Bookmarked page ${req.url}.</p></article>`);
  });
  await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
  siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => site.close(() => r())));

describe('kg import-bookmarks', () => {
  it('imports a browser export: folders, dates and notes kept, hostile addresses skipped, a cut file reported by line; a re-run finds only duplicates', async () => {
    const file = path.join(dir, 'bookmarks.html');
    writeFileSync(
      file,
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
        '  <DT><A HREF="javascript:alert(document.cookie)">bookmarklet</A>',
        '  <DT><A HREF="data:text/html,<script>alert(1)</script>">data</A>',
        '  <DT><A HREF="file:///etc/passwd">local file</A>',
        '  <DT><A>no address</A>',
        `  <DT><A HREF="${siteUrl}/cut">cut off`,
      ].join('\n'),
    );
    const first = await run(['import-bookmarks', file, '--json']);
    // Exit 1: two entries could not be imported; the summary still says what was.
    expect(first.code, first.stderr).toBe(1);
    expect(first.json()).toMatchObject({
      format: 'html',
      entries: 7,
      imported: 2,
      duplicates: 0,
      skipped: { unsupported_scheme: 3 },
      failed: 2,
      failures: [
        { place: 'line 16', error: 'a link without an address (no HREF)' },
        { place: 'line 17', url: `${siteUrl}/cut`, error: 'the file ends inside this bookmark (truncated)' },
      ],
    });
    const listed = await captures();
    expect(listed).toHaveLength(2);
    expect(listed.find((c) => c.url === `${siteUrl}/essay`)).toMatchObject({
      title: 'An essay & its <notes>',
      source: 'cli',
      content_type: 'article',
      why: 'Imported bookmark · folder: Reading & Notes · tags: Reading & Notes, habits · added 2019-02-12T19:33:20.000Z\n\nRead twice',
    });
    expect(listed.find((c) => c.url === `${siteUrl}/talk`)).toMatchObject({
      title: 'A talk',
      why: 'Imported bookmark · folder: Reading & Notes / Video · tags: Reading & Notes, Video',
    });
    expect(listed.some((c) => /^(javascript|data|file):/.test(c.url ?? ''))).toBe(false);

    const again = await run(['import-bookmarks', file, '--json']);
    expect(again.json()).toMatchObject({
      imported: 0,
      duplicates: 2,
      skipped: { unsupported_scheme: 3 },
      failed: 2,
      resumed_from: 0,
    });
  });

  it('an import killed midway resumes after the last confirmed bookmark, without doubles', async () => {
    const file = path.join(dir, 'pocket.csv');
    const rows = Array.from({ length: 12 }, (_, i) => `"Row ${i}, quoted",${siteUrl}/row-${i},1700000000,a|b,unread`);
    writeFileSync(file, ['title,url,time_added,tags,status', ...rows].join('\n') + '\n');
    // Killed (SIGKILL, no chance to tidy up) once two bookmarks are reported imported.
    const killed = await new Promise<string>((resolve, reject) => {
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
      let stderr = '';
      child.stderr.on('data', (d: Buffer) => {
        stderr += d.toString();
        if ((stderr.match(/ imported /g) ?? []).length >= 2) child.kill('SIGKILL');
      });
      child.on('error', reject);
      child.on('close', () => resolve(stderr));
    });
    expect(killed).toMatch(/\[2\] line 3 imported /);
    expect(readdirSync(path.join(config, 'imports'))).toHaveLength(1);

    const resumed = await run(['import-bookmarks', file, '--json']);
    expect(resumed.code, resumed.stderr).toBe(0);
    const summary = resumed.json();
    expect(summary.resumed_from).toBeGreaterThanOrEqual(2);
    expect(summary.resumed_from).toBeLessThan(12);
    expect(resumed.stderr).toContain(
      `resuming: the ${summary.resumed_from} entries an earlier run handled are passed over`,
    );
    // A bookmark created but not yet recorded when the kill came is found again as a duplicate.
    expect(summary.imported + summary.duplicates).toBe(12);
    expect(summary.duplicates).toBeLessThanOrEqual(1);
    const urls = (await captures()).map((c) => c.url).filter((u) => u?.includes('/row-'));
    expect(new Set(urls).size).toBe(12);
    expect(urls).toHaveLength(12);
    // Done: nothing left to resume.
    expect(readdirSync(path.join(config, 'imports'))).toEqual([]);
  });
});
