import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { Problem, TokenPair } from '@kg/contracts';
import { remember, uniqueEmail } from './support/client';
import { magicLinkToken, startOwnServer, type OwnServer } from './support/own-server';
import { rawUpload, type RawAnswer } from './support/raw-upload';

// A server of its own with low limits (the shared one keeps the defaults the other suites rely on).
vi.setConfig({ testTimeout: 60_000 });

const LIMITS = {
  SEARCH_RATE_LIMIT_PER_MINUTE: '5',
  SEARCH_RATE_LIMIT_PER_CREDENTIAL_PER_MINUTE: '3',
  CAPTURE_RATE_LIMIT_PER_MINUTE: '2',
  UPLOAD_RATE_LIMIT_PER_MINUTE: '12',
  UPLOAD_CONCURRENCY_PER_TENANT: '1',
  UPLOAD_STORAGE_QUOTA_BYTES: '2000',
  UPLOAD_MAX_BYTES: String(64 * 1024),
  // An upload's body has 10 s here (plus a second per 64 KiB sent): the slowloris case waits that long.
  UPLOAD_READ_TIMEOUT_SECONDS: '10',
  PARA_JOB_RATE_LIMIT_PER_MINUTE: '2',
};

let server: OwnServer;
beforeAll(async () => {
  server = await startOwnServer(LIMITS);
}, 180_000);
afterAll(() => server?.stop());

interface Answer {
  status: number;
  headers: Headers;
  body: any;
}

async function call(method: string, path: string, auth: string, body?: unknown): Promise<Answer> {
  const res = await fetch(`${server.apiUrl}${path}`, {
    method,
    headers: { authorization: auth, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined };
}

/** A fresh tenant on this suite's server: its bearer, and an API key of the same tenant. */
async function tenant(tag: string): Promise<{ bearer: string; apiKey: string }> {
  const token = await magicLinkToken(server, uniqueEmail(tag));
  remember(token);
  const res = await fetch(`${server.apiUrl}/auth/magic-link/verify`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ token }),
  });
  const pair = TokenPair.parse(await res.json());
  remember(pair.access_token, pair.refresh_token);
  const bearer = `Bearer ${pair.access_token}`;
  const key = await call('POST', '/auth/api-keys', bearer, { name: 'limits' });
  expect(key.status, JSON.stringify(key.body)).toBe(201);
  remember(key.body.key);
  return { bearer, apiKey: `ApiKey ${key.body.key}` };
}

const header = (a: Answer | RawAnswer, name: string) =>
  a.headers instanceof Headers ? a.headers.get(name) : ((a.headers[name] as string | undefined) ?? null);

/**
 * 429 problem+json naming the exhausted policy, with Retry-After, the conventions' RateLimit-*
 * fields and the IETF RateLimit-Policy / RateLimit fields (draft-ietf-httpapi-ratelimit-headers).
 */
function expectLimited(a: Answer | RawAnswer, policy: string, quota: number, windowSeconds = 60) {
  expect(a.status, JSON.stringify(a.body)).toBe(429);
  expect(header(a, 'content-type')).toContain('application/problem+json');
  const problem = Problem.parse(a.body);
  expect(problem).toMatchObject({ status: 429, type: 'https://kg.dev/problems/rate-limited' });
  expect(problem.detail).toContain(`"${policy}"`);
  const retry = Number(header(a, 'retry-after'));
  expect(retry).toBeGreaterThan(0);
  expect(retry).toBeLessThanOrEqual(windowSeconds);
  expect(header(a, 'ratelimit-limit')).toBe(String(quota));
  expect(header(a, 'ratelimit-remaining')).toBe('0');
  expect(header(a, 'ratelimit-reset')).toBe(String(retry));
  expect(header(a, 'ratelimit-policy')).toContain(`"${policy}";q=${quota};w=${windowSeconds}`);
  expect(header(a, 'ratelimit')).toContain(`"${policy}";r=0;t=${retry}`);
}

describe('search: semantic and hybrid queries, suggestions and context share one limit', () => {
  it('per credential, then per tenant; keyword search stays open; another tenant is unaffected', async () => {
    const [a, b] = await Promise.all([tenant('limits-search-a'), tenant('limits-search-b')]);
    const first = await call('GET', '/nodes?query=coffee&mode=semantic', a.bearer);
    expect(first.status).toBe(200);
    expect(header(first, 'ratelimit-policy')).toBe('"search-tenant";q=5;w=60, "search-credential";q=3;w=60');
    expect(header(first, 'ratelimit')).toMatch(/^"search-tenant";r=4;t=\d+, "search-credential";r=2;t=\d+$/);
    expect((await call('GET', '/nodes?query=coffee', a.bearer)).status).toBe(200); // hybrid, the default
    expect((await call('GET', '/links/suggestions?text=coffee', a.bearer)).status).toBe(200);
    // The bearer's 3 are spent: the next search of any kind is refused for it.
    expectLimited(await call('POST', '/context', a.bearer, {}), 'search-credential', 3);
    expectLimited(await call('GET', '/nodes?query=coffee&mode=hybrid', a.bearer), 'search-credential', 3);
    // The refused ones spent nothing of the tenant's 5: its API key has 2 left, then the tenant is spent
    // (the key is not: it has used 2 of its own 3).
    for (let i = 0; i < 2; i++) expect((await call('GET', '/nodes?query=tea', a.apiKey)).status).toBe(200);
    expectLimited(await call('GET', '/links/suggestions?text=tea', a.apiKey), 'search-tenant', 5);
    // Keyword search and listing are not limited as searches.
    expect((await call('GET', '/nodes?query=coffee&mode=keyword', a.bearer)).status).toBe(200);
    expect((await call('GET', '/nodes', a.apiKey)).status).toBe(200);
    // Tenant B searches as if A were not there.
    const bSearch = await call('GET', '/nodes?query=coffee&mode=semantic', b.bearer);
    expect(bSearch.status).toBe(200);
    expect(header(bSearch, 'ratelimit')).toMatch(/^"search-tenant";r=4;t=\d+, "search-credential";r=2;t=\d+$/);
    expect((await call('POST', '/context', b.apiKey, {})).status).toBe(200);
  });
});

describe('captures and PARA jobs', () => {
  it('POST /captures is limited per tenant; another tenant is unaffected', async () => {
    const [a, b] = await Promise.all([tenant('limits-captures-a'), tenant('limits-captures-b')]);
    const note = (i: number) => ({ title: `Note ${i}`, content_type: 'note', source: 'api', raw_content: `Text ${i}` });
    expect((await call('POST', '/captures', a.bearer, note(1))).status).toBe(201);
    expect((await call('POST', '/captures', a.apiKey, note(2))).status).toBe(201);
    expectLimited(await call('POST', '/captures', a.bearer, note(3)), 'captures-tenant', 2);
    expect((await call('POST', '/captures', b.bearer, note(4))).status).toBe(201);
    // Nothing was stored for the refused one.
    expect((await call('GET', '/captures', a.bearer)).body.total).toBe(2);
  });

  it('PARA create, match and rescan share the job limit of the tenant', async () => {
    const [a, b] = await Promise.all([tenant('limits-para-a'), tenant('limits-para-b')]);
    const created = await call('POST', '/para', a.bearer, { category: 'areas', label: 'Health' });
    expect(created.status).toBe(201);
    expect(header(created, 'ratelimit-policy')).toBe('"para-jobs";q=2;w=60');
    expect((await call('POST', `/para/${created.body.id}/match`, a.bearer)).status).toBe(202);
    expectLimited(await call('POST', `/para/${created.body.id}/match`, a.bearer), 'para-jobs', 2);
    expectLimited(await call('POST', '/para', a.apiKey, { category: 'areas', label: 'Sleep' }), 'para-jobs', 2);
    expectLimited(await call('POST', '/para/rescan', a.bearer), 'para-jobs', 2);
    // The refused creation made nothing.
    expect((await call('GET', '/para', a.bearer)).body.data).toHaveLength(1);
    expect((await call('POST', '/para', b.bearer, { category: 'areas', label: 'Health' })).status).toBe(201);
    const rescan = await call('POST', '/para/rescan', b.bearer);
    expect(rescan.status).toBe(202);
    expect(header(rescan, 'ratelimit-policy')).toBe('"para-jobs";q=2;w=60, "para-rescan";q=1;w=300');
  });
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * An upload that holds the tenant's one slot (its body not sent yet), shown by a second upload
 * refused beside it. The second may reach the slot first (the first is then refused once its
 * body is sent): that round is finished and another started.
 */
async function holdSlot(auth: string, probeAuth: string) {
  for (let round = 1; round <= 5; round++) {
    const held = rawUpload(server.apiUrl, auth, 1000, { hold: true });
    await sleep(200 * round); // a head start, not an assertion
    const probe = await rawUpload(server.apiUrl, probeAuth, 10).answer;
    if (probe.status === 429) return { held, probe };
    expect(probe.status, JSON.stringify(probe.body)).toBe(201);
    await held.finish();
    expect([201, 429]).toContain((await held.answer).status);
  }
  throw new Error('no upload held its slot in 5 rounds');
}

describe('uploads', () => {
  it('counts uploads per tenant per minute (refused ones too); another tenant is unaffected', async () => {
    const [a, b] = await Promise.all([tenant('limits-upload-a'), tenant('limits-upload-b')]);
    for (let i = 0; i < 12; i++) expect((await rawUpload(server.apiUrl, a.bearer, 10).answer).status).toBe(201);
    expectLimited(await rawUpload(server.apiUrl, a.apiKey, 10).answer, 'uploads-tenant', 12);
    expect((await rawUpload(server.apiUrl, b.bearer, 10).answer).status).toBe(201);
  });

  it('one upload of a tenant in progress at a time (here): a second answers 429 until the first ends', async () => {
    const [a, b] = await Promise.all([tenant('limits-inflight-a'), tenant('limits-inflight-b')]);
    const { held, probe } = await holdSlot(a.bearer, a.apiKey);
    expect(Number(header(probe, 'retry-after'))).toBeGreaterThan(0);
    expect(Problem.parse(probe.body).detail).toContain('1 uploads in progress');
    expect((await rawUpload(server.apiUrl, b.bearer, 10).answer).status).toBe(201);
    await held.finish();
    expect((await held.answer).status).toBe(201);
    expect((await rawUpload(server.apiUrl, a.apiKey, 10).answer).status).toBe(201);
  });

  it('a tenant past its stored-bytes quota gets 413 until it deletes captures', async () => {
    const a = await tenant('limits-quota');
    const first = await rawUpload(server.apiUrl, a.bearer, 1500).answer;
    expect(first.status).toBe(201);
    const over = await rawUpload(server.apiUrl, a.bearer, 600).answer;
    expect(over.status).toBe(413);
    expect(header(over, 'content-type')).toContain('application/problem+json');
    expect(Problem.parse(over.body).detail).toContain('quota of 2000 bytes');
    expect((await call('DELETE', `/captures/${first.body.id}`, a.bearer)).status).toBe(204);
    expect((await rawUpload(server.apiUrl, a.bearer, 600).answer).status).toBe(201);
  });

  it('an upload whose body stops arriving gets 408 with Connection: close; its slot is free again, nothing stored', async () => {
    const a = await tenant('limits-slowloris');
    // The head of the body, then nothing: the tenant's one upload slot is held until the read deadline.
    const stalled = rawUpload(server.apiUrl, a.bearer, 1000, { hold: true });
    const answer = await stalled.answer;
    expect(answer.status, JSON.stringify(answer.body)).toBe(408);
    expect(header(answer, 'content-type')).toContain('application/problem+json');
    expect(header(answer, 'connection')).toBe('close');
    expect(Problem.parse(answer.body)).toMatchObject({
      status: 408,
      type: 'https://kg.dev/problems/request-timeout',
      detail: expect.stringContaining('did not arrive in time'),
    });
    expect((await rawUpload(server.apiUrl, a.apiKey, 10).answer).status).toBe(201);
    const list = await call('GET', '/captures', a.bearer);
    expect(list.body.data).toHaveLength(1);
  });

  it('an over-size upload sent at once or slowly always reads its 413 problem', async () => {
    const sends = [{}, {}, { chunk: 8 * 1024, pauseMs: 5 }, { chunk: 32 * 1024, pauseMs: 20 }];
    for (const [i, opts] of sends.entries()) {
      const a = await tenant(`limits-oversize-${i}`);
      for (let n = 0; n < 3; n++) {
        const res = await rawUpload(server.apiUrl, a.bearer, 64 * 1024 + 1 + n * 100_000, opts).answer;
        expect(res.status, JSON.stringify(res.body)).toBe(413);
        expect(Problem.parse(res.body)).toMatchObject({ status: 413, detail: expect.stringContaining('upload limit') });
      }
    }
  });
});
