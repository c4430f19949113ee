import { request } from 'node:http';
import { PassThrough } from 'node:stream';
import type { Request, Response as ExpressResponse } from 'express';
import { afterEach, describe, expect, it } from 'vitest';
import { unauthorized } from '@kg/contracts';
import { fakePeers, startTestGateway } from '../testing';
import { discardBody, UploadGate } from './uploads';

/** API keys `<tenant>.<credential>`: the tenant and the credential are what the key says. */
const verify = async ({ key }: { key: string }) => {
  const [tenant, credential] = key.split('.');
  if (!tenant || !credential) throw unauthorized();
  return { tenantId: `tnt_${tenant}`, subject: 'usr_x', credential: { kind: 'api_key' as const, id: credential } };
};

const node = { id: 'nod_1', title: 'One' };
let usedBytes = 0;
const uploads: number[] = [];
const peers = fakePeers({
  auth: { apiKeys: { verify } },
  graph: {
    nodes: { list: async () => ({ data: [], total: 0, page: 1, per_page: 20 }) },
    search: { nodes: async () => ({ nodes: [node] }), links: async () => ({ links: [] }) },
  },
  search: {
    nodes: { search: async () => ({ hits: [{ id: node.id, score: 1 }], total: 1 }) },
    links: { suggest: async () => ({ hits: [] }) },
    context: { rank: async () => ({ data: [] }) },
  },
  captures: {
    create: async () => ({ id: 'cap_1' }),
    usage: async () => ({ stored_bytes: usedBytes }),
    upload: async (input: { bytes_base64: string }) => {
      uploads.push(Buffer.from(input.bytes_base64, 'base64').length);
      return { id: 'cap_2' };
    },
  },
  para: {
    items: { create: async () => ({ id: 'para_1' }), match: async () => ({ id: 'pjob_1' }) },
    rescan: async () => ({ queued: 0, job_id: 'pjob_2' }),
  },
});

let gateway: Awaited<ReturnType<typeof startTestGateway>> | null = null;
afterEach(async () => {
  await gateway?.close();
  gateway = null;
  usedBytes = 0;
  uploads.length = 0;
});

const start = async (env: Record<string, string>) => {
  gateway = await startTestGateway({ peers, env });
  return gateway;
};

const call = (path: string, key: string, init: RequestInit = {}) =>
  gateway!.fetch(`/api/v1${path}`, {
    ...init,
    headers: { authorization: `ApiKey ${key}`, 'content-type': 'application/json', ...init.headers },
  });

/** A 429 problem with every rate-limit header: the conventions' three, Retry-After and the IETF two. */
async function expectLimited(res: Response, policy: string, quota: number) {
  expect(res.status).toBe(429);
  expect(res.headers.get('content-type')).toContain('application/problem+json');
  const retry = Number(res.headers.get('retry-after'));
  expect(retry).toBeGreaterThan(0);
  expect(retry).toBeLessThanOrEqual(60);
  expect(res.headers.get('ratelimit-limit')).toBe(String(quota));
  expect(res.headers.get('ratelimit-remaining')).toBe('0');
  expect(Number(res.headers.get('ratelimit-reset'))).toBe(retry);
  expect(res.headers.get('ratelimit-policy')).toContain(`"${policy}";q=${quota};w=60`);
  expect(res.headers.get('ratelimit')).toContain(`"${policy}";r=0;t=${retry}`);
  const body = (await res.json()) as { status: number; type: string; detail: string };
  expect(body).toMatchObject({ status: 429, type: 'https://kg.dev/problems/rate-limited' });
  expect(body.detail).toContain(policy);
}

describe('search limits', () => {
  it('semantic and hybrid GET /nodes share the search limit per tenant; keyword and listing do not count', async () => {
    await start({ SEARCH_RATE_LIMIT_PER_MINUTE: '3', SEARCH_RATE_LIMIT_PER_CREDENTIAL_PER_MINUTE: '100' });
    const first = await call('/nodes?query=x&mode=semantic', 'a.k1');
    expect(first.status).toBe(200);
    expect(first.headers.get('ratelimit-policy')).toBe('"search-tenant";q=3;w=60, "search-credential";q=100;w=60');
    expect(first.headers.get('ratelimit')).toBe('"search-tenant";r=2;t=60, "search-credential";r=99;t=60');
    expect((await call('/nodes?query=x', 'a.k2')).status).toBe(200); // hybrid by default, another key
    for (const q of ['', '?query=x&mode=keyword', '?query=%20%20&mode=semantic'])
      expect((await call(`/nodes${q}`, 'a.k1')).status).toBe(200);
    expect((await call('/nodes?query=x&mode=hybrid', 'a.k1')).status).toBe(200);
    await expectLimited(await call('/nodes?query=x&mode=semantic', 'a.k3'), 'search-tenant', 3);
    // Keyword search stays open to the limited tenant, and another tenant is not limited at all.
    expect((await call('/nodes?query=x&mode=keyword', 'a.k1')).status).toBe(200);
    expect((await call('/nodes?query=x&mode=semantic', 'b.k1')).status).toBe(200);
  });

  it("requests a credential's own limit refused spend nothing of its tenant's", async () => {
    await start({ SEARCH_RATE_LIMIT_PER_MINUTE: '4', SEARCH_RATE_LIMIT_PER_CREDENTIAL_PER_MINUTE: '2' });
    const statuses = [];
    for (let i = 0; i < 6; i++) statuses.push((await call('/nodes?query=x', 'q.k1')).status);
    expect(statuses).toEqual([200, 200, 429, 429, 429, 429]);
    expect((await call('/nodes?query=x', 'q.k2')).status).toBe(200);
    expect((await call('/nodes?query=x', 'q.k2')).status).toBe(200);
    await expectLimited(await call('/nodes?query=x', 'q.k3'), 'search-tenant', 4);
  });

  it('suggestions and POST /context take from the same limit, per credential too', async () => {
    await start({ SEARCH_RATE_LIMIT_PER_MINUTE: '100', SEARCH_RATE_LIMIT_PER_CREDENTIAL_PER_MINUTE: '2' });
    expect((await call('/links/suggestions?text=hello', 'c.k1')).status).toBe(200);
    expect((await call('/context', 'c.k1', { method: 'POST', body: '{}' })).status).toBe(200);
    await expectLimited(await call('/links/suggestions?text=hello', 'c.k1'), 'search-credential', 2);
    await expectLimited(await call('/context', 'c.k1', { method: 'POST', body: '{}' }), 'search-credential', 2);
    expect((await call('/context', 'c.k2', { method: 'POST', body: '{}' })).status).toBe(200);
  });
});

describe('capture and PARA limits', () => {
  it('POST /captures is limited per tenant', async () => {
    await start({ CAPTURE_RATE_LIMIT_PER_MINUTE: '2' });
    const capture = (key: string) =>
      call('/captures', key, {
        method: 'POST',
        body: JSON.stringify({ title: 'A page', url: 'https://example.com/', content_type: 'article', source: 'api' }),
      });
    expect((await capture('d.k1')).status).toBe(201);
    expect((await capture('d.k2')).status).toBe(201);
    await expectLimited(await capture('d.k1'), 'captures-tenant', 2);
    expect((await capture('e.k1')).status).toBe(201);
  });

  it('PARA create, match and rescan share the job limit; rescan keeps its once per 5 minutes', async () => {
    await start({ PARA_JOB_RATE_LIMIT_PER_MINUTE: '3' });
    const create = (key: string) =>
      call('/para', key, { method: 'POST', body: JSON.stringify({ category: 'areas', label: 'Health' }) });
    expect((await create('f.k1')).status).toBe(201);
    expect((await call('/para/para_1/match', 'f.k1', { method: 'POST' })).status).toBe(202);
    expect((await call('/para/rescan', 'f.k1', { method: 'POST' })).status).toBe(202);
    await expectLimited(await call('/para/para_1/match', 'f.k1', { method: 'POST' }), 'para-jobs', 3);
    await expectLimited(await create('f.k1'), 'para-jobs', 3);
    // An invalid body starts nothing and takes nothing.
    expect((await call('/para', 'g.k1', { method: 'POST', body: '{}' })).status).toBe(400);
    expect((await create('g.k1')).status).toBe(201);
    expect((await call('/para/rescan', 'g.k1', { method: 'POST' })).status).toBe(202);
    const again = await call('/para/rescan', 'g.k1', { method: 'POST' });
    expect(again.status).toBe(429);
    expect(again.headers.get('ratelimit-policy')).toContain('"para-rescan";q=1;w=300');
    expect(Number(again.headers.get('retry-after'))).toBeGreaterThan(60);
  });
});

/** A multipart upload of `size` bytes of text, sent through node:http so the test decides when it ends. */
function rawUpload(base: string, key: string, size: number, opts: { hold?: boolean; chunk?: number } = {}) {
  const boundary = 'kg-limits-test';
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.txt"\r\nContent-Type: text/plain\r\n\r\n`,
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  const url = new URL(`${base}/api/v1/captures/upload`);
  const req = request({
    host: url.hostname,
    port: url.port,
    path: url.pathname,
    method: 'POST',
    agent: false,
    headers: {
      authorization: `ApiKey ${key}`,
      'content-type': `multipart/form-data; boundary=${boundary}`,
      'content-length': String(head.length + size + tail.length),
    },
  });
  const answer = new Promise<{ status: number; headers: Record<string, unknown>; body: string }>((resolve, reject) => {
    req.on('response', (res) => {
      let body = '';
      res.on('data', (d: Buffer) => (body += d.toString()));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
      res.on('error', reject);
    });
    req.on('error', reject);
  });
  req.write(head);
  const send = async () => {
    const chunk = opts.chunk ?? size;
    for (let sent = 0; sent < size; sent += chunk) {
      const n = Math.min(chunk, size - sent);
      if (!req.write(Buffer.alloc(n, 'a'))) await new Promise((r) => req.once('drain', r));
      if (opts.chunk) await new Promise((r) => setTimeout(r, 2));
    }
    req.end(tail);
  };
  if (!opts.hold) void send();
  answer.catch(() => undefined); // an aborted upload has no answer
  return { answer, finish: send, abort: () => req.destroy() };
}

/**
 * An upload that holds its slot (body not sent), shown by a probe refused with `refusal` beside it.
 * The probe may reach the slot first (the held one is then refused once its body is sent): that
 * round is finished and another started, with a longer head start.
 */
async function holdSlot(base: string, key: string, probeKey: string, refusal: number) {
  for (let round = 1; round <= 5; round++) {
    const held = rawUpload(base, key, 1000, { hold: true });
    await new Promise((r) => setTimeout(r, 50 * round));
    const probe = await rawUpload(base, probeKey, 10).answer;
    if (probe.status === refusal) return { held, probe };
    expect(probe.status).toBe(201);
    await held.finish();
    await held.answer;
  }
  throw new Error('no upload held its slot in 5 rounds');
}

describe('upload limits', () => {
  it('counts uploads per tenant per minute', async () => {
    const g = await start({ UPLOAD_RATE_LIMIT_PER_MINUTE: '2' });
    expect((await rawUpload(g.base, 'h.k1', 10).answer).status).toBe(201);
    expect((await rawUpload(g.base, 'h.k2', 10).answer).status).toBe(201);
    const third = await rawUpload(g.base, 'h.k1', 10).answer;
    expect(third.status).toBe(429);
    expect(third.headers['ratelimit-policy']).toBe('"uploads-tenant";q=2;w=60');
    expect(third.headers['ratelimit']).toMatch(/^"uploads-tenant";r=0;t=\d+$/);
    expect((await rawUpload(g.base, 'i.k1', 10).answer).status).toBe(201);
  });

  it('holds at most UPLOAD_CONCURRENCY_PER_TENANT uploads of a tenant in progress; other tenants go on', async () => {
    const g = await start({ UPLOAD_CONCURRENCY_PER_TENANT: '1' });
    const { held: slow, probe: second } = await holdSlot(g.base, 'j.k1', 'j.k2', 429);
    expect(Number(second.headers['retry-after'])).toBeGreaterThan(0);
    expect(JSON.parse(second.body)).toMatchObject({ status: 429, detail: expect.stringContaining('in progress') });
    expect((await rawUpload(g.base, 'k.k1', 10).answer).status).toBe(201);
    await slow.finish();
    expect((await slow.answer).status).toBe(201);
    expect((await rawUpload(g.base, 'j.k2', 10).answer).status).toBe(201);
  });

  it('answers 503 with Retry-After when this process holds UPLOAD_CONCURRENCY_PER_PROCESS uploads', async () => {
    const g = await start({ UPLOAD_CONCURRENCY_PER_PROCESS: '1' });
    const { held: slow, probe: other } = await holdSlot(g.base, 'l.k1', 'm.k1', 503);
    expect(Number(other.headers['retry-after'])).toBeGreaterThan(0);
    await slow.finish();
    expect((await slow.answer).status).toBe(201);
    expect((await rawUpload(g.base, 'm.k1', 10).answer).status).toBe(201);
  });

  it('a client that goes away in the middle of its upload frees its slot at once', async () => {
    const g = await start({ UPLOAD_CONCURRENCY_PER_TENANT: '1' });
    const { held } = await holdSlot(g.base, 'r.k1', 'r.k2', 429);
    held.abort();
    let next: Awaited<typeof held.answer> | null = null;
    for (let i = 0; i < 50 && next?.status !== 201; i++) next = await rawUpload(g.base, 'r.k2', 10).answer;
    expect(next!.status).toBe(201);
    expect(uploads).toEqual([10]);
  });

  it('refuses an upload past the stored-bytes quota with 413, before or after reading the file', async () => {
    const g = await start({ UPLOAD_STORAGE_QUOTA_BYTES: '1000' });
    usedBytes = 990;
    expect((await rawUpload(g.base, 'n.k1', 10).answer).status).toBe(201);
    const over = await rawUpload(g.base, 'n.k1', 11).answer;
    expect(over.status).toBe(413);
    expect(JSON.parse(over.body)).toMatchObject({
      status: 413,
      detail: expect.stringContaining('quota of 1000 bytes'),
    });
    usedBytes = 1000;
    const full = await rawUpload(g.base, 'n.k1', 50_000).answer;
    expect(full.status).toBe(413);
    expect(full.body).toContain('1000 bytes (0 MiB) are in use');
    expect(uploads).toEqual([10]);
  });

  it('an over-size upload, sent fast or slowly, always reads its 413 problem', async () => {
    const g = await start({ UPLOAD_MAX_BYTES: String(256 * 1024) });
    for (const chunk of [undefined, 16 * 1024, 1024 * 1024]) {
      for (let i = 0; i < 5; i++) {
        const res = await rawUpload(g.base, 'o.k1', 1024 * 1024, chunk ? { chunk } : {}).answer;
        expect(res.status).toBe(413);
        expect(res.headers['content-type']).toContain('application/problem+json');
        expect(JSON.parse(res.body)).toMatchObject({ status: 413, type: 'https://kg.dev/problems/payload-too-large' });
      }
    }
  });

  it('an upload refused before its file is read (429) still lets the client send it and read the answer', async () => {
    const g = await start({ UPLOAD_RATE_LIMIT_PER_MINUTE: '1' });
    expect((await rawUpload(g.base, 'p.k1', 10).answer).status).toBe(201);
    for (let i = 0; i < 5; i++) {
      const res = await rawUpload(g.base, 'p.k1', 2 * 1024 * 1024, { chunk: 64 * 1024 }).answer;
      expect(res.status).toBe(429);
      expect(JSON.parse(res.body)).toMatchObject({ status: 429 });
    }
  });
});

describe('discardBody', () => {
  const fakeRes = () => {
    const headers: Record<string, string> = {};
    return {
      headers,
      res: { setHeader: (k: string, v: string) => (headers[k.toLowerCase()] = v) } as unknown as ExpressResponse,
    };
  };

  it('reads a body to its end, and then the connection stays open', async () => {
    const body = new PassThrough();
    const { headers, res } = fakeRes();
    const done = discardBody(body as unknown as Request, res, { maxBytes: 100, maxMs: 5_000 });
    body.write(Buffer.alloc(60));
    body.end(Buffer.alloc(40));
    await done;
    expect(headers['connection']).toBeUndefined();
  });

  it('stops past maxBytes, or after maxMs, and then the answer closes the connection', async () => {
    const big = new PassThrough();
    const a = fakeRes();
    const first = discardBody(big as unknown as Request, a.res, { maxBytes: 100, maxMs: 60_000 });
    big.write(Buffer.alloc(101));
    await first;
    expect(a.headers['connection']).toBe('close');
    const slow = new PassThrough();
    const b = fakeRes();
    await discardBody(slow as unknown as Request, b.res, { maxBytes: 100, maxMs: 20 });
    expect(b.headers['connection']).toBe('close');
  });
});

describe('UploadGate', () => {
  it('lets max holders in; a release (once, however often called) lets the next in', () => {
    const gate = new UploadGate(2);
    const a = gate.enter();
    const b = gate.enter();
    expect(a && b).toBeTruthy();
    expect(gate.enter()).toBeNull();
    a!();
    a!();
    expect(gate.inProgress).toBe(1);
    expect(gate.enter()).not.toBeNull();
    expect(gate.enter()).toBeNull();
  });
});
