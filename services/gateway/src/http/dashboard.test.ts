import { mkdirSync, mkdtempSync, readFileSync, renameSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway } from '../testing';
import { cachedFileReader } from './dashboard';
import { ACCEPTED_TYPES } from './uploads';

const dir = mkdtempSync(join(tmpdir(), 'kg-dashboard-'));
const INDEX = '<!doctype html><html><head><script type="module" src="/assets/index-Abc123.js"></script></head></html>';
mkdirSync(join(dir, 'assets'));
writeFileSync(join(dir, 'index.html'), INDEX);
writeFileSync(join(dir, 'assets', 'index-Abc123.js'), 'console.log(1)');
writeFileSync(join(dir, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');

let gateway: Awaited<ReturnType<typeof startTestGateway>>;
let unbuilt: Awaited<ReturnType<typeof startTestGateway>>;
beforeAll(async () => {
  gateway = await startTestGateway({ env: { DASHBOARD_DIR: dir } });
  unbuilt = await startTestGateway({ env: { DASHBOARD_DIR: join(dir, 'missing') } });
});
afterAll(async () => {
  await gateway.close();
  await unbuilt.close();
});

describe('the dashboard at / (a built clients/dashboard/dist)', () => {
  it('serves index.html never cached, with a CSP that allows only its own origin', async () => {
    const res = await gateway.fetch('/');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/html');
    expect(res.headers.get('cache-control')).toBe('no-cache');
    expect(await res.text()).toBe(INDEX);
    const csp = res.headers.get('content-security-policy')!;
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("style-src 'self';");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toMatch(/unsafe-inline|https:|\*/);
  });

  it('answers the app’s own paths with index.html (reload of /graph, the mailed /sign-in link)', async () => {
    for (const path of ['/graph', '/nodes/node_01abc', '/sign-in', '/auth/callback?code=x&state=y']) {
      const res = await gateway.fetch(path);
      expect(res.status, path).toBe(200);
      expect(await res.text(), path).toBe(INDEX);
    }
  });

  it('caches hashed assets for a year as immutable; other files are revalidated', async () => {
    const asset = await gateway.fetch('/assets/index-Abc123.js');
    expect(asset.status).toBe(200);
    expect(asset.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(await asset.text()).toBe('console.log(1)');
    const icon = await gateway.fetch('/favicon.svg');
    expect(icon.status).toBe(200);
    expect(icon.headers.get('cache-control')).toBe('no-cache');
  });

  it('a missing asset is a 404 problem, not index.html', async () => {
    const res = await gateway.fetch('/assets/gone-Xyz.js');
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toContain('application/problem+json');
  });

  it('leaves the API and the probes alone', async () => {
    const api = await gateway.fetch('/api/v1/no-such-thing');
    expect(api.status).toBe(404);
    expect(api.headers.get('content-type')).toContain('application/problem+json');
    expect(await (await gateway.fetch('/api/v1/openapi.json')).json()).toHaveProperty('openapi');
    expect(await (await gateway.fetch('/healthz')).json()).toEqual({ status: 'ok' });
    const post = await gateway.fetch('/graph', { method: 'POST' });
    expect(post.status).toBe(404);
  });

  it('a share posted to /share without the service worker keeps and creates nothing: 303 to the page that says so', async () => {
    const form = new FormData();
    form.append('title', 'Shared');
    form.append('url', 'https://example.com/a');
    form.append('file', new Blob([Buffer.alloc(2 * 1024 * 1024, 1)]), 'big.bin');
    const res = await gateway.fetch('/share', { method: 'POST', body: form, redirect: 'manual' });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/share?unsupported=1');
    expect(res.headers.get('cache-control')).toBe('no-store');
    // The page it names is the app.
    expect(await (await gateway.fetch('/share?unsupported=1')).text()).toBe(INDEX);
  });

  it('the share target accepts the files the upload route accepts', async () => {
    const manifest = JSON.parse(
      readFileSync(new URL('../../../../clients/dashboard/public/manifest.webmanifest', import.meta.url), 'utf8'),
    ) as {
      share_target: { action: string; method: string; enctype: string; params: { files: { accept: string[] }[] } };
    };
    expect(manifest.share_target).toMatchObject({ action: '/share', method: 'POST', enctype: 'multipart/form-data' });
    const accepted = manifest.share_target.params.files[0]!.accept.filter((a) => a.includes('/'));
    expect(accepted.sort()).toEqual([...ACCEPTED_TYPES].sort());
  });

  it('serves a rebuilt index.html at once, without a restart (a build beside a running server)', async () => {
    const rebuilt = INDEX.replace('index-Abc123.js', 'index-Def456.js');
    writeFileSync(join(dir, 'index.html'), rebuilt);
    try {
      expect(await (await gateway.fetch('/graph')).text()).toBe(rebuilt);
    } finally {
      writeFileSync(join(dir, 'index.html'), INDEX);
    }
  });

  it('without a build, the app’s paths answer 503 naming the build command; the API still works', async () => {
    const res = await unbuilt.fetch('/sign-in');
    expect(res.status).toBe(503);
    expect(((await res.json()) as { detail: string }).detail).toContain('npm run build:dashboard');
    expect((await unbuilt.fetch('/healthz')).status).toBe(200);
    expect(unbuilt.lines.some((l) => l.msg?.includes('dashboard not built'))).toBe(true);
  });
});

describe('cachedFileReader (index.html read again only when it changes)', () => {
  const LATER = () => Date.now() + 60_000; // every file is older than the racy window
  const counted = () => {
    const reads: string[] = [];
    const read = (file: string) => {
      reads.push(file);
      return readFileSync(file);
    };
    return { reads, read };
  };
  const fileIn = (name: string) => join(mkdtempSync(join(tmpdir(), 'kg-index-')), name);
  const write = (file: string, text: string, mtime: Date) => {
    writeFileSync(file, text);
    utimesSync(file, mtime, mtime);
  };

  it('reads the file once while it is unchanged', () => {
    const file = fileIn('index.html');
    write(file, 'v1', new Date('2026-01-01T00:00:00Z'));
    const { reads, read } = counted();
    const index = cachedFileReader(file, { read, now: LATER });
    for (let i = 0; i < 5; i += 1) expect(index().toString()).toBe('v1');
    expect(reads).toHaveLength(1);
  });

  it('serves the new content after an edit in place (same size) and after a swap by rename, as build.sh does', () => {
    const file = fileIn('index.html');
    write(file, 'v1', new Date('2026-01-01T00:00:00Z'));
    const { reads, read } = counted();
    const index = cachedFileReader(file, { read, now: LATER });
    expect(index().toString()).toBe('v1');
    write(file, 'v2', new Date('2026-01-01T00:00:01Z'));
    expect(index().toString()).toBe('v2');
    // build.sh: cp to .index.html.new, then mv over index.html (same size and mtime here: the inode tells).
    write(`${file}.new`, 'v3', new Date('2026-01-01T00:00:01Z'));
    renameSync(`${file}.new`, file);
    expect(index().toString()).toBe('v3');
    expect(index().toString()).toBe('v3');
    expect(reads).toHaveLength(3);
  });

  it('does not trust a file changed within the last second (a change in the same clock tick keeps size and mtime)', () => {
    const file = fileIn('index.html');
    writeFileSync(file, 'v1');
    const changedAt = statSync(file).ctimeMs;
    const { reads, read } = counted();
    const index = cachedFileReader(file, { read, now: () => changedAt + 500 });
    expect(index().toString()).toBe('v1');
    expect(index().toString()).toBe('v1');
    expect(reads).toHaveLength(2);
  });

  it('throws when the file is missing (the route answers 503)', () => {
    expect(() => cachedFileReader(fileIn('missing.html'))()).toThrow();
  });
});
