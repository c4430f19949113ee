import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { freshConfig, kg, rememberProfile } from './support/cli';
import { api, createNode, expectProblem, newTenant, remember, signIn, type Session } from './support/client';
import { magicLinkToken, startOwnServer, type OwnServer } from './support/own-server';
import { openStream as open, type Sse } from './support/sse';

// The expiry suite waits for a token's lifetime on a server of its own: more than the e2e default of 30 s.
vi.setConfig({ testTimeout: 60_000 });

/** Issues an API key of `s`'s tenant and returns its id and its Authorization header. */
async function newKey(s: Session, name: string) {
  const created = await api<{ id: string; key: string }>('POST', '/auth/api-keys', { auth: s.bearer, body: { name } });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return { id: created.body.id, auth: `ApiKey ${created.body.key}` };
}

const credentialEnded = (e: Sse) => e.event === 'credential.ended';

describe('GET /events ends with its credential', () => {
  let s: Session;
  beforeAll(async () => {
    s = await newTenant('events-cred');
  });

  it('a revoked API key ends its stream with credential.ended (revoked); later events are not delivered', async () => {
    const key = await newKey(s, 'streaming');
    const stream = await open(key.auth);
    try {
      const before = await createNode(s.bearer, { title: 'before the revocation' });
      await stream.until((e) => e.event === 'node.created' && JSON.stringify(e.data).includes(before.id));
      expect((await api('DELETE', `/auth/api-keys/${key.id}`, { auth: s.bearer })).status).toBe(204);
      const last = await stream.until(credentialEnded);
      expect(last.data).toMatchObject({ reason: 'revoked' });
      expect(last.data['detail']).toEqual(expect.stringContaining('revoked'));
      await stream.closedByServer();
      expect(stream.events.at(-1)).toBe(last);
      const after = await createNode(s.bearer, { title: 'after the revocation' });
      // The node event of `after` reaches a stream still open on the tenant (the proof it was
      // published) but never the ended one.
      const witness = await open(s.bearer);
      try {
        const other = await createNode(s.bearer, { title: 'witnessed' });
        await witness.until((e) => e.event === 'node.created' && JSON.stringify(e.data).includes(other.id));
      } finally {
        await witness.close();
      }
      expect(stream.events.filter((e) => JSON.stringify(e.data).includes(after.id))).toEqual([]);
    } finally {
      await stream.close();
    }
  });

  it('signing out ends the streams of that session with credential.ended (signed_out), not of another session', async () => {
    const session = await newTenant('events-logout');
    const stream = await open(session.bearer);
    // The same person signed in a second time (another session of the same tenant) keeps its stream.
    const elsewhere = await signIn(session.email);
    const bystander = await open(elsewhere.bearer);
    try {
      const out = await api('POST', '/auth/logout', { body: { refresh_token: session.refresh_token } });
      expect(out.status).toBe(204);
      const last = await stream.until(credentialEnded);
      expect(last.data).toMatchObject({ reason: 'signed_out' });
      await stream.closedByServer();
      const node = await createNode(elsewhere.bearer, { title: 'the other session still hears' });
      await bystander.until((e) => e.event === 'node.created' && JSON.stringify(e.data).includes(node.id));
      expect(bystander.events.some(credentialEnded)).toBe(false);
      expect(bystander.ended()).toBe(false);
      expect(stream.events.filter((e) => JSON.stringify(e.data).includes(node.id))).toEqual([]);
    } finally {
      await stream.close();
      await bystander.close();
    }
  });

  it('a reused refresh token (its family revoked) ends the streams of that session with reason revoked', async () => {
    const session = await newTenant('events-reuse');
    const stream = await open(session.bearer);
    try {
      const first = await api('POST', '/auth/refresh', { body: { refresh_token: session.refresh_token } });
      expect(first.status).toBe(200);
      const next = (first.body as { refresh_token: string }).refresh_token;
      expect((await api('POST', '/auth/refresh', { body: { refresh_token: next } })).status).toBe(200);
      // The first token again, after its successor was used: reuse, the whole family is revoked.
      expect((await api('POST', '/auth/refresh', { body: { refresh_token: session.refresh_token } })).status).toBe(401);
      const last = await stream.until(credentialEnded);
      expect(last.data).toMatchObject({ reason: 'revoked' });
      await stream.closedByServer();
    } finally {
      await stream.close();
    }
  });

  it('caps concurrent streams per credential and per tenant: 429 problem with Retry-After, a slot frees on close', async () => {
    const tenant = await newTenant('events-cap');
    const [a, b, c] = await Promise.all([newKey(tenant, 'a'), newKey(tenant, 'b'), newKey(tenant, 'c')]);
    const held: Array<Awaited<ReturnType<typeof open>>> = [];
    try {
      for (let i = 0; i < 10; i++) held.push(await open(a.auth));
      const over = await fetch(`${inject('baseUrl')}/api/v1/events`, { headers: { authorization: a.auth } });
      const body = await over.text();
      const problem = expectProblem({ status: over.status, headers: over.headers, body: JSON.parse(body) }, 429);
      expect(problem.detail).toMatch(/10 .*streams.*credential/);
      expect(Number(over.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(over.headers.get('ratelimit-limit')).toBe('10');
      expect(over.headers.get('ratelimit-remaining')).toBe('0');
      expect(over.headers.get('ratelimit-policy')).toBe('"event-streams-credential";q=10;qu="concurrent-requests"');
      expect(over.headers.get('ratelimit')).toMatch(/^"event-streams-credential";r=0;t=\d+$/);
      // The tenant's cap (20) counts every credential's streams.
      for (let i = 0; i < 10; i++) held.push(await open(b.auth));
      const tenantOver = await fetch(`${inject('baseUrl')}/api/v1/events`, { headers: { authorization: c.auth } });
      const tenantProblem = expectProblem(
        { status: tenantOver.status, headers: tenantOver.headers, body: JSON.parse(await tenantOver.text()) },
        429,
      );
      expect(tenantProblem.detail).toMatch(/20 .*streams.*tenant/);
      expect(tenantOver.headers.get('ratelimit-limit')).toBe('20');
      expect(tenantOver.headers.get('ratelimit-policy')).toBe('"event-streams-tenant";q=20;qu="concurrent-requests"');
      // Another tenant is not affected.
      const other = await open(s.bearer);
      await other.close();
      // Closing one stream frees its slot (released as the server sees the connection close).
      await held.shift()!.close();
      let status = 0;
      const deadline = Date.now() + 10_000;
      while (status !== 200 && Date.now() < deadline) {
        const res = await fetch(`${inject('baseUrl')}/api/v1/events`, { headers: { authorization: c.auth } });
        status = res.status;
        await res.body?.cancel();
        if (status !== 200) await new Promise((r) => setTimeout(r, 100));
      }
      expect(status, 'a closed stream gave its slot back').toBe(200);
    } finally {
      await Promise.all(held.map((h) => h.close()));
    }
  });
});

describe('kg capture --wait and the end of its credential', () => {
  it('stops with a clear message (exit 3) when its API key is revoked while it waits', async () => {
    const s = await newTenant('events-cli');
    const key = await newKey(s, 'cli-wait');
    remember(key.auth.slice('ApiKey '.length));
    // A page that answers only when the test lets it: the capture stays in processing meanwhile.
    let fetched: () => void = () => undefined;
    const requested = new Promise<void>((r) => (fetched = r));
    const held: Array<() => void> = [];
    const site = createServer((_req, res) => {
      fetched();
      held.push(() => res.end('<html><head><title>Held</title></head><body><p>Held page.</p></body></html>'));
    });
    await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
    try {
      const url = `http://127.0.0.1:${(site.address() as AddressInfo).port}/held`;
      const run = kg(['capture', '--url', url, '--wait'], {
        config: freshConfig(),
        env: { SVC_TOKEN: key.auth.slice('ApiKey '.length) },
        timeoutMs: 120_000,
      });
      await requested;
      expect((await api('DELETE', `/auth/api-keys/${key.id}`, { auth: s.bearer })).status).toBe(204);
      const res = await run;
      expect(res.code, res.stderr).toBe(3);
      expect(res.stderr).toMatch(/event stream ended: .*revoked/i);
    } finally {
      for (const release of held) release();
      site.closeAllConnections();
      await new Promise<void>((r) => site.close(() => r()));
    }
  });
});

describe('GET /events ends when its access token expires', () => {
  /** Access tokens of this suite's own server live this long. */
  const TTL_SECONDS = 3;
  let server: OwnServer;
  beforeAll(async () => {
    // The capture below fetches a page of this test on the loopback address.
    server = await startOwnServer({ ACCESS_TOKEN_TTL_SECONDS: String(TTL_SECONDS), FETCH_ALLOWLIST: '127.0.0.1' });
  }, 180_000);
  afterAll(() => server?.stop());

  it('sends credential.ended (expired) at the token expiry and ends the stream; a fresh token reconnects', async () => {
    const email = `events-ttl-${Date.now().toString(36)}@e2e.test`;
    const token = await magicLinkToken(server, email);
    remember(token);
    const verified = await fetch(`${server.apiUrl}/auth/magic-link/verify`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token }),
    });
    const pair = (await verified.json()) as { access_token: string; refresh_token: string; expires_in: number };
    remember(pair.access_token, pair.refresh_token);
    expect(pair.expires_in).toBe(TTL_SECONDS);
    const stream = await open(`Bearer ${pair.access_token}`, server.apiUrl);
    try {
      const last = await stream.until(credentialEnded, (TTL_SECONDS + 10) * 1000);
      expect(last.data).toMatchObject({ reason: 'expired' });
      await stream.closedByServer();
      const refreshed = await fetch(`${server.apiUrl}/auth/refresh`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ refresh_token: pair.refresh_token }),
      });
      expect(refreshed.status).toBe(200);
      const fresh = (await refreshed.json()) as { access_token: string; refresh_token: string };
      remember(fresh.access_token, fresh.refresh_token);
      const again = await open(`Bearer ${fresh.access_token}`, server.apiUrl);
      await again.close();
    } finally {
      await stream.close();
    }
  });

  it('kg capture --wait outlives its access tokens: its stream is opened again with a fresh token, the capture followed to the end', async () => {
    const config = freshConfig();
    const run = (args: string[]) => kg(args, { config, env: { SVC_API_URL: server.apiUrl }, timeoutMs: 120_000 });
    const email = `events-cli-ttl-${Date.now().toString(36)}@e2e.test`;
    const token = await magicLinkToken(server, email);
    remember(token);
    const login = await run(['login', '--email', email, '--token', token]);
    expect(login.code, login.stderr).toBe(0);
    rememberProfile(config);
    // A page that answers after two token lifetimes: the capture stays in processing meanwhile.
    const site = createServer((_req, res) => {
      setTimeout(
        () => {
          res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
          res.end(
            '<!doctype html><html><head><title>Slow page</title></head><body><article><h1>Slow page</h1>' +
              '<p>A page that takes its time, longer than an access token lives on this server.</p>'.repeat(5) +
              '</article></body></html>',
          );
        },
        2 * TTL_SECONDS * 1000,
      );
    });
    await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
    try {
      const url = `http://127.0.0.1:${(site.address() as AddressInfo).port}/slow`;
      const res = await run(['capture', '--url', url, '--wait', '--json']);
      rememberProfile(config);
      expect(res.code, res.stderr).toBe(0);
      expect(res.json()).toMatchObject({ status: 'processed' });
    } finally {
      site.closeAllConnections();
      await new Promise<void>((r) => site.close(() => r()));
    }
  });
});
