import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFetchStage, type FetchOptions } from './fetch';
import { digest, StageError } from './result';

const options: FetchOptions = {
  connectTimeoutMs: 2000,
  totalTimeoutMs: 1500,
  maxBytes: 1000,
  maxRedirects: 2,
  allowlist: ['127.0.0.1'],
};

let server: http.Server;
let base: string;
const hits: string[] = [];

beforeAll(async () => {
  server = http.createServer((req, res) => {
    hits.push(req.url!);
    const route = req.url!;
    if (route === '/page') {
      res.writeHead(200, { 'content-type': 'text/html; charset=UTF-8' });
      return res.end('<html><title>T</title><p>hello</p></html>');
    }
    if (route.startsWith('/hop/')) {
      const n = Number(route.slice(5));
      res.writeHead(302, { location: n > 0 ? `/hop/${n - 1}` : '/page' });
      return res.end();
    }
    if (route === '/to-private') {
      res.writeHead(301, { location: 'http://10.0.0.1/secret' });
      return res.end();
    }
    if (route === '/to-metadata') {
      res.writeHead(307, { location: 'http://[::ffff:169.254.169.254]/latest/meta-data' });
      return res.end();
    }
    if (route === '/big-declared') {
      res.writeHead(200, { 'content-type': 'text/plain', 'content-length': '5000' });
      return res.end('x'.repeat(5000));
    }
    if (route === '/big-chunked') {
      res.writeHead(200, { 'content-type': 'text/plain' });
      for (let i = 0; i < 20; i++) res.write('y'.repeat(100));
      return res.end();
    }
    if (route === '/slow') return; // never answers
    if (route === '/gone') {
      res.writeHead(404);
      return res.end();
    }
    res.writeHead(503);
    res.end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

const failure = async (promise: Promise<unknown>) => {
  const err = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(StageError);
  return err as StageError;
};

describe('fetch stage', () => {
  const fetchStage = createFetchStage(options);

  it('fetches an allowlisted local page with its type, charset, model and input digest', async () => {
    const result = await fetchStage({ url: `${base}/page` });
    expect(result.output).toMatchObject({ url: `${base}/page`, status: 200, mime: 'text/html', charset: 'UTF-8' });
    expect(result.output.body.toString()).toContain('<p>hello</p>');
    expect(result.model).toBe('http-fetch@1');
    expect(result.input_digest).toBe(digest(`${base}/page`));
  });

  it('follows redirects up to the limit and reports the final URL', async () => {
    const result = await fetchStage({ url: `${base}/hop/1` });
    expect(result.output.url).toBe(`${base}/page`);
    const err = await failure(fetchStage({ url: `${base}/hop/5` }));
    expect(err.message).toBe('more than 2 redirects');
    expect(err.retryable).toBe(false);
  });

  it.each([
    ['http://127.0.0.1:9/', '127.0.0.1', 'loopback'],
    ['http://localhost:9/', 'localhost', 'loopback'],
    ['http://10.0.0.1/', '10.0.0.1', 'private'],
    ['http://192.168.0.10/', '192.168.0.10', 'private'],
    ['http://169.254.169.254/latest/meta-data', '169.254.169.254', 'link-local'],
    ['http://[::1]/', '::1', 'loopback'],
    ['http://[::ffff:10.0.0.1]/', '::ffff:a00:1', 'private'],
    ['http://[fd00::1]/', 'fd00::1', 'unique local'],
    ['http://0.0.0.0/', '0.0.0.0', 'unspecified'],
  ])('refuses %s without an allowlist, naming the rule (%s: %s)', async (url, host, rule) => {
    const err = await failure(createFetchStage({ ...options, allowlist: [] })({ url }));
    expect(err.message).toBe(
      `refused: the address of ${host} is not public (${rule}); only public addresses are fetched`,
    );
    expect(err.retryable).toBe(false);
  });

  it('never names the address a host name resolved to (internal DNS stays internal)', async () => {
    const err = await failure(createFetchStage({ ...options, allowlist: [] })({ url: 'http://localhost:9/' }));
    expect(err.message).not.toMatch(/127\.0\.0\.1|::1\b/);
  });

  it('checks every redirect hop: a public-looking start that redirects inward is refused, not naming the target', async () => {
    const before = hits.length;
    const inward = await failure(fetchStage({ url: `${base}/to-private` }));
    expect(inward.message).toBe(
      'refused: redirect 1 leads to an address that is not public (private); only public addresses are fetched',
    );
    const metadata = await failure(fetchStage({ url: `${base}/to-metadata` }));
    expect(metadata.message).toBe(
      'refused: redirect 1 leads to an address that is not public (link-local); only public addresses are fetched',
    );
    expect(`${inward.message} ${metadata.message}`).not.toMatch(/10\.0\.0\.1|169\.254/);
    expect(hits.slice(before)).toEqual(['/to-private', '/to-metadata']);
  });

  it('refuses non-HTTP schemes and URLs with credentials', async () => {
    expect((await failure(fetchStage({ url: 'file:///etc/passwd' }))).message).toContain('only http and https');
    expect((await failure(fetchStage({ url: `http://u:p@127.0.0.1:1/` }))).message).toContain('credentials');
  });

  it('enforces the size cap on a declared length and while streaming', async () => {
    expect((await failure(fetchStage({ url: `${base}/big-declared` }))).message).toContain('5000 bytes exceeds');
    expect((await failure(fetchStage({ url: `${base}/big-chunked` }))).message).toContain(
      'exceeds the 1000-byte limit',
    );
  });

  it('gives up after the total timeout, as a retryable failure', async () => {
    const started = Date.now();
    const err = await failure(fetchStage({ url: `${base}/slow` }));
    expect(err.message).toBe('fetch timed out after 1500 ms');
    expect(err.retryable).toBe(true);
    expect(Date.now() - started).toBeLessThan(4000);
  });

  it('treats 4xx as permanent and 5xx as retryable', async () => {
    expect(await failure(fetchStage({ url: `${base}/gone` }))).toMatchObject({
      retryable: false,
      message: expect.stringContaining('HTTP 404'),
    });
    expect(await failure(fetchStage({ url: `${base}/down` }))).toMatchObject({
      retryable: true,
      message: expect.stringContaining('HTTP 503'),
    });
  });
});
