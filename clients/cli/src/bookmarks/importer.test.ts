import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ApiError, createKgClient, type KgClient } from '@kg/sdk';
import { ImportStopped, bookmarkWhy, importBookmarks } from './importer.ts';
import { StateFile } from './state.ts';
import type { Bookmark, Entry } from '@kg/bookmarks';

/** A small API on loopback with the two routes the import uses, and knobs for its answers. */
interface Api {
  captures: Map<string, { id: string; body: Record<string, unknown> }>;
  calls: string[];
  /** POSTs answered 429 (Retry-After: 1) before the next one goes through. */
  rateLimitNext: number;
  /** URLs whose POST answers 500 (once each). */
  failOnce: Set<string>;
  /** POSTs answer 401 (a revoked key). */
  revoked: boolean;
}

let server: Server;
let baseUrl = '';
const api: Api = { captures: new Map(), calls: [], rateLimitNext: 0, failOnce: new Set(), revoked: false };

const body = async (req: IncomingMessage) => {
  let s = '';
  for await (const c of req) s += c;
  return JSON.parse(s) as Record<string, unknown>;
};
const problem = (status: number, title: string) => JSON.stringify({ type: 'about:blank', title, status });

beforeAll(async () => {
  server = createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url!, 'http://x');
      api.calls.push(`${req.method} ${url.pathname}${url.search}`);
      if (req.method === 'GET' && url.pathname === '/api/v1/captures/check') {
        const found = api.captures.get(url.searchParams.get('url')!);
        res.writeHead(found ? 200 : 404, {
          'content-type': found ? 'application/json' : 'application/problem+json',
        });
        res.end(
          found
            ? JSON.stringify({
                url: url.searchParams.get('url'),
                capture_id: found.id,
                status: 'pending',
                captured_at: new Date().toISOString(),
              })
            : problem(404, 'Not found'),
        );
        return;
      }
      if (req.method === 'POST' && url.pathname === '/api/v1/captures') {
        const b = await body(req);
        if (api.revoked) {
          res.writeHead(401, { 'content-type': 'application/problem+json' });
          return res.end(problem(401, 'Unauthorized'));
        }
        if (api.rateLimitNext > 0) {
          api.rateLimitNext--;
          res.writeHead(429, { 'content-type': 'application/problem+json', 'retry-after': '1' });
          return res.end(problem(429, 'Too many requests'));
        }
        if (api.failOnce.delete(b['url'] as string)) {
          res.writeHead(500, { 'content-type': 'application/problem+json' });
          return res.end(problem(500, 'Internal error'));
        }
        if ((b['title'] as string).includes('refuse me')) {
          res.writeHead(422, { 'content-type': 'application/problem+json' });
          return res.end(problem(422, 'The title is not allowed'));
        }
        const id = `cap_${String(api.captures.size).padStart(26, '0')}`;
        api.captures.set(b['url'] as string, { id, body: b });
        res.writeHead(201, { 'content-type': 'application/json' });
        return res.end(JSON.stringify({ id, ...b }));
      }
      res.writeHead(404).end();
    })();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

let configDir: string;
let kg: KgClient;
beforeEach(async () => {
  api.captures.clear();
  api.calls = [];
  api.rateLimitNext = 0;
  api.failOnce.clear();
  api.revoked = false;
  configDir = await mkdtemp(path.join(tmpdir(), 'kg-import-state-'));
  kg = createKgClient({ env: { baseUrl, apiKey: `key_${'a'.repeat(26)}.${'b'.repeat(43)}`, configDir } });
  return () => rm(configDir, { recursive: true, force: true });
});

const bm = (line: number, url: string, extra: Partial<Bookmark> = {}): Bookmark => ({
  kind: 'bookmark',
  line,
  url,
  title: `Title ${line}`,
  folders: [],
  tags: [],
  ...extra,
});
async function* list(entries: Entry[]) {
  yield* entries;
}
const stateFiles = async () => readdir(path.join(configDir, 'imports')).catch(() => [] as string[]);

describe('importBookmarks', () => {
  it('imports, skips duplicates and non-web addresses, reports refusals and unreadable entries by place', async () => {
    api.captures.set('https://old.example/', { id: 'cap_existing', body: {} });
    const entries: Entry[] = [
      bm(3, 'https://a.example/', {
        folders: ['Dev', 'JS'],
        tags: ['tools'],
        addedAt: new Date('2019-03-04T10:00:00Z'),
        note: 'the note',
      }),
      bm(4, 'https://old.example/'),
      bm(5, 'javascript:alert(1)'),
      bm(6, 'data:text/html,<b>x</b>'),
      bm(7, 'file:///etc/passwd'),
      { kind: 'problem', line: 8, message: 'a link without an address (no HREF)' },
      bm(9, 'https://b.example/', { title: 'please refuse me' }),
      bm(10, 'https://c.example/', { title: '' }),
    ];
    const summary = await importBookmarks(
      kg,
      list(entries),
      new StateFile(configDir, 'f'.repeat(64), baseUrl, 'ten_a'),
    );
    expect(summary).toEqual({
      entries: 8,
      resumed_from: 0,
      imported: 2,
      duplicates: 1,
      skipped: { unsupported_scheme: 3 },
      failed: 2,
      failures: [
        { place: 'line 8', error: 'a link without an address (no HREF)' },
        { place: 'line 9', url: 'https://b.example/', error: 'The title is not allowed' },
      ],
    });
    expect(api.captures.get('https://a.example/')!.body).toEqual({
      title: 'Title 3',
      url: 'https://a.example/',
      content_type: 'article',
      source: 'cli',
      why: 'Imported bookmark · folder: Dev / JS · tags: Dev, JS, tools · added 2019-03-04T10:00:00.000Z\n\nthe note',
    });
    // No title: the URL is the title.
    expect(api.captures.get('https://c.example/')!.body).toMatchObject({ title: 'https://c.example/' });
    // Skipped addresses never reach the API.
    expect(api.calls.some((c) => /javascript|data%3A|file%3A/.test(c))).toBe(false);
    // Finished: nothing left to resume.
    expect(await stateFiles()).toEqual([]);
  });

  it('waits out a 429 as Retry-After says instead of failing', async () => {
    api.rateLimitNext = 2;
    const waits: number[] = [];
    const summary = await importBookmarks(
      kg,
      list([bm(1, 'https://a.example/')]),
      new StateFile(configDir, 'e'.repeat(64), baseUrl, 'ten_a'),
      { entry: () => undefined, waiting: (s) => waits.push(s) },
    );
    expect(summary).toMatchObject({ imported: 1, failed: 0 });
    expect(waits).toEqual([1, 1]);
    expect(api.calls.filter((c) => c.startsWith('POST'))).toHaveLength(3);
  });

  it('a server error stops the import; running again resumes after the last confirmed entry', async () => {
    const entries = [
      bm(1, 'https://a.example/'),
      bm(2, 'javascript:void(0)'),
      bm(3, 'https://b.example/'),
      bm(4, 'https://c.example/'),
    ];
    api.failOnce.add('https://b.example/');
    const state = () => new StateFile(configDir, 'd'.repeat(64), baseUrl, 'ten_a');
    await expect(importBookmarks(kg, list(entries), state())).rejects.toBeInstanceOf(ImportStopped);
    const [saved] = await stateFiles();
    expect(JSON.parse(await readFile(path.join(configDir, 'imports', saved!), 'utf8'))).toMatchObject({
      position: 2,
      counts: { imported: 1, skipped: { unsupported_scheme: 1 } },
    });
    api.calls = [];
    const summary = await importBookmarks(kg, list(entries), state());
    expect(summary).toMatchObject({
      entries: 4,
      resumed_from: 2,
      imported: 3,
      duplicates: 0,
      skipped: { unsupported_scheme: 1 },
      failed: 0,
    });
    // The entries before the stop were not looked at again.
    expect(api.calls.some((c) => c.includes('a.example'))).toBe(false);
    expect([...api.captures.keys()]).toEqual(['https://a.example/', 'https://b.example/', 'https://c.example/']);
    // The same file against another server, or for another tenant, starts afresh.
    expect(new StateFile(configDir, 'd'.repeat(64), 'http://other/api/v1', 'ten_a').path).not.toBe(state().path);
    expect(new StateFile(configDir, 'd'.repeat(64), baseUrl, 'ten_b').path).not.toBe(state().path);
  });

  it('sends titles and notes the API can store: no NUL or other controls, no lone surrogates', async () => {
    const summary = await importBookmarks(
      kg,
      list([bm(1, 'https://a.example/', { title: 'Nul\u0000 and \ud800 bell\u0007', note: 'x\u0000y\udc00' })]),
      new StateFile(configDir, 'c'.repeat(64), baseUrl, 'ten_a'),
    );
    expect(summary).toMatchObject({ imported: 1, failed: 0 });
    expect(api.captures.get('https://a.example/')!.body).toMatchObject({
      title: 'Nul and \ufffd bell',
      why: 'Imported bookmark\n\nxy\ufffd',
    });
  });

  it('a refused credential stops the import as an authentication error (exit 3), progress kept', async () => {
    const state = new StateFile(configDir, 'b'.repeat(64), baseUrl, 'ten_a');
    api.revoked = true;
    const stopped = await importBookmarks(
      kg,
      list([bm(1, 'ftp://x.example/'), bm(2, 'https://a.example/')]),
      state,
    ).catch((e: unknown) => e);
    expect(stopped).toBeInstanceOf(ApiError);
    expect(stopped).not.toBeInstanceOf(ImportStopped);
    expect((stopped as ApiError).status).toBe(401);
    expect((await state.load()).position).toBe(1);
  });

  it('keeps the why within the API limit', () => {
    expect(bookmarkWhy(bm(1, 'https://a.example/', { note: 'x'.repeat(6000) }))).toHaveLength(5000);
  });
});
