import { mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { AuthRequiredError } from './errors.ts';
import { ProfileStore } from './profile-store.ts';
import { Session } from './session.ts';

const BASE = 'http://kg.test/api/v1';
const KEY = `key_${'0'.repeat(26)}.${'a'.repeat(43)}`;

/** A fake API: /auth/refresh rotates `rt-N` into `at-N+1`/`rt-N+1`; /nodes wants the newest access token. */
function fakeServer(opts: { refreshDelayMs?: number; refreshStatus?: number } = {}) {
  let generation = 0;
  const calls: string[] = [];
  const fetch = async (input: Request | string | URL) => {
    const req = input as Request;
    const url = new URL(req.url);
    calls.push(`${req.method} ${url.pathname}`);
    if (url.pathname.endsWith('/auth/refresh')) {
      const { refresh_token } = (await req.json()) as { refresh_token: string };
      await new Promise((r) => setTimeout(r, opts.refreshDelayMs ?? 0));
      if (opts.refreshStatus) return new Response('{"title":"Unauthorized"}', { status: opts.refreshStatus });
      if (refresh_token !== `rt-${generation}`) return new Response('{"title":"reuse"}', { status: 401 });
      generation++;
      return Response.json({ access_token: `at-${generation}`, refresh_token: `rt-${generation}`, expires_in: 900 });
    }
    const auth = req.headers.get('authorization');
    if (auth === `ApiKey ${KEY}` || auth === `Bearer at-${generation}`) return Response.json({ ok: true, auth });
    return new Response('{"title":"Unauthorized"}', {
      status: 401,
      headers: { 'content-type': 'application/problem+json' },
    });
  };
  return { fetch: fetch as typeof globalThis.fetch, calls, generation: () => generation };
}

function setup(server: ReturnType<typeof fakeServer>, apiKey?: string) {
  const configDir = mkdtempSync(path.join(tmpdir(), 'kg-sdk-'));
  const make = () => new Session({ env: { baseUrl: BASE, apiKey, configDir }, fetch: server.fetch });
  return { configDir, make };
}

const get = (s: Session) => s.fetch(new Request(`${BASE}/nodes`));

describe('Session', () => {
  it('stores a login with mode 0600, one profile per base URL', async () => {
    const server = fakeServer();
    const { configDir, make } = setup(server);
    const s = make();
    await s.saveLogin({ access_token: 'at-0', refresh_token: 'rt-0', expires_in: 900 }, 'ada@example.com');
    expect(statSync(s.store.file).mode & 0o777).toBe(0o600);
    expect(statSync(path.dirname(s.store.file)).mode & 0o777).toBe(0o700);
    expect(new ProfileStore(configDir, 'http://other.test/api/v1').file).not.toBe(s.store.file);
    expect((await make().login())?.email).toBe('ada@example.com');
  });

  it('refreshes before the access token expires', async () => {
    const server = fakeServer();
    const { make } = setup(server);
    const s = make();
    await s.saveLogin({ access_token: 'at-0', refresh_token: 'rt-0', expires_in: 900 });
    // 30 s left of a 15-minute token: inside the 60 s margin.
    const saved_at = new Date(Date.now() - 870_000).toISOString();
    await s.store.write({ ...(await s.login())!, expires_at: Date.now() + 30_000, saved_at });
    const res = await get(make());
    expect(res.status).toBe(200);
    expect(server.calls).toEqual(['POST /api/v1/auth/refresh', 'GET /api/v1/nodes']);
    expect((await make().login())?.refresh_token).toBe('rt-1');
  });

  it('a short-lived token is refreshed a quarter of its lifetime before expiry, not on every request', async () => {
    const server = fakeServer();
    const { make } = setup(server);
    await make().saveLogin({ access_token: 'at-0', refresh_token: 'rt-0', expires_in: 4 });
    expect((await get(make())).status).toBe(200);
    expect(server.calls).toEqual(['GET /api/v1/nodes']);
    await new Promise((r) => setTimeout(r, 3_100));
    expect((await get(make())).status).toBe(200);
    expect(server.calls).toEqual(['GET /api/v1/nodes', 'POST /api/v1/auth/refresh', 'GET /api/v1/nodes']);
  });

  it('after a 401 refreshes once and retries the request', async () => {
    const server = fakeServer();
    const { make } = setup(server);
    const s = make();
    await s.saveLogin({ access_token: 'at-0', refresh_token: 'rt-0', expires_in: 900 });
    // The server rotated behind our back (another device): our access token is refused.
    await s.store.write({ ...(await s.login())!, access_token: 'at-revoked' });
    const res = await get(make());
    expect(res.status).toBe(200);
    expect(server.calls).toEqual(['GET /api/v1/nodes', 'POST /api/v1/auth/refresh', 'GET /api/v1/nodes']);
  });

  it('a refresh the server refuses ends the session with AuthRequiredError, without a loop', async () => {
    const server = fakeServer({ refreshStatus: 401 });
    const { make } = setup(server);
    await make().saveLogin({ access_token: 'at-x', refresh_token: 'rt-0', expires_in: 900 });
    await expect(get(make())).rejects.toThrow(AuthRequiredError);
    expect(server.calls).toEqual(['GET /api/v1/nodes', 'POST /api/v1/auth/refresh']);
  });

  it('two processes refreshing at once rotate the tokens once (profile lock, then re-read)', async () => {
    const server = fakeServer({ refreshDelayMs: 50 });
    const { make } = setup(server);
    const first = make();
    await first.saveLogin({ access_token: 'at-0', refresh_token: 'rt-0', expires_in: 900 });
    await first.store.write({ ...(await first.login())!, expires_at: Date.now() - 1000 });
    // Separate Session objects: nothing shared in memory, only the profile on disk.
    const results = await Promise.all([get(make()), get(make()), get(make())]);
    expect(results.map((r) => r.status)).toEqual([200, 200, 200]);
    expect(server.calls.filter((c) => c.endsWith('/auth/refresh'))).toHaveLength(1);
    expect(server.generation()).toBe(1);
  });

  it('SVC_TOKEN sends the API key and never refreshes', async () => {
    const server = fakeServer();
    const { make } = setup(server, KEY);
    const ok = await get(make());
    expect(await ok.json()).toEqual({ ok: true, auth: `ApiKey ${KEY}` });
    expect(await make().kind()).toBe('api_key');
  });

  it('without a login or a key asks to sign in', async () => {
    const { make } = setup(fakeServer());
    await expect(get(make())).rejects.toThrow(/Not signed in to http:\/\/kg.test\/api\/v1.*kg login/);
  });
});
