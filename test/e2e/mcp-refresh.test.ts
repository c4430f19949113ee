import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { KG } from './support/cli';
import { call, callOk, httpClient, startHttpMcp, stdioClient } from './support/mcp';
import { magicLinkToken, startOwnServer, type OwnServer } from './support/own-server';

/** Access tokens of this suite's own server live this long (the shared server's live 15 minutes). */
const TTL_SECONDS = 6;
// Each test waits out a token or two (TTL + 1 s each) beside the e2e default's 30 s of work.
vi.setConfig({ testTimeout: 90_000 });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
let n = 0;
const email = (tag: string) => `${tag}-${Date.now().toString(36)}-${n++}@mcp-refresh.test`;

interface Pair {
  access_token: string;
  refresh_token: string;
  expires_in: number;
}

async function post<T>(
  server: OwnServer,
  route: string,
  body: unknown,
  auth?: string,
): Promise<{ status: number; body: T }> {
  const res = await fetch(`${server.apiUrl}${route}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(auth ? { authorization: auth } : {}) },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json().catch(() => undefined)) as T };
}

/** The one stored login of a config directory, as `kg login` wrote it. */
function storedLogin(configDir: string): { access_token: string; refresh_token: string } {
  const dir = path.join(configDir, 'profiles');
  const files = readdirSync(dir).filter((f) => f.endsWith('.json'));
  expect(files).toHaveLength(1);
  return JSON.parse(readFileSync(path.join(dir, files[0]!), 'utf8'));
}

describe('kg-mcp sessions outlive short access tokens', () => {
  let server: OwnServer;

  beforeAll(async () => {
    server = await startOwnServer({ ACCESS_TOKEN_TTL_SECONDS: String(TTL_SECONDS) });
  }, 180_000);
  afterAll(async () => {
    await server?.stop();
  });

  it('over stdio, the login stored by `kg login` is refreshed in the middle of a session', async () => {
    const configDir = mkdtempSync(path.join(tmpdir(), 'kg-mcp-login-'));
    const env = { SVC_API_URL: server.apiUrl, KG_CONFIG_DIR: configDir };
    const address = email('stdio');
    const login = spawnSync(KG, ['login', '--email', address, '--token', await magicLinkToken(server, address)], {
      env: { ...process.env, ...env },
      encoding: 'utf8',
    });
    expect(login.status, login.stderr).toBe(0);
    const first = storedLogin(configDir);

    const { client, stderr } = await stdioClient(env);
    try {
      expect(stderr()).toContain('credential: the stored login');
      const node = await callOk(client, 'create_node', { title: 'Outlives its token' });
      await sleep((TTL_SECONDS + 1) * 1000);
      // The first access token has expired on the server…
      const stale = await fetch(`${server.apiUrl}/nodes/${node.id}`, {
        headers: { authorization: `Bearer ${first.access_token}` },
      });
      expect(stale.status).toBe(401);
      // …and the same MCP session goes on, with rotated tokens in the store.
      expect((await callOk(client, 'get_node', { id: node.id })).title).toBe('Outlives its token');
      await sleep((TTL_SECONDS + 1) * 1000);
      expect((await callOk(client, 'search_nodes', { query: 'outlives', mode: 'keyword' })).total).toBe(1);
      const now = storedLogin(configDir);
      expect(now.access_token).not.toBe(first.access_token);
      expect(now.refresh_token).not.toBe(first.refresh_token);
    } finally {
      await client.close();
    }
  });

  it('over HTTP, an expired token answers 401 and the refreshed one continues the same session', async () => {
    // The MCP server first: on a loaded machine its start alone once outlasted the token.
    const mcp = await startHttpMcp({ SVC_API_URL: server.apiUrl });
    try {
      const address = email('http');
      const signIn = await post<Pair>(server, '/auth/magic-link/verify', {
        token: await magicLinkToken(server, address),
      });
      expect(signIn.status).toBe(200);
      expect(signIn.body.expires_in).toBe(TTL_SECONDS);
      let pair = signIn.body;
      const client = await httpClient(mcp.url, () => `Bearer ${pair.access_token}`);
      const sid = client.sessionId();
      const node = await callOk(client, 'create_node', { title: 'Remote and refreshed' });
      await sleep((TTL_SECONDS + 1) * 1000);
      await expect(call(client, 'get_node', { id: node.id })).rejects.toThrow(/401/);
      const refreshed = await post<Pair>(server, '/auth/refresh', { refresh_token: pair.refresh_token });
      expect(refreshed.status).toBe(200);
      pair = refreshed.body;
      expect((await callOk(client, 'get_node', { id: node.id })).title).toBe('Remote and refreshed');
      expect(client.sessionId()).toBe(sid);
      await client.close().catch(() => {});
    } finally {
      await mcp.stop();
    }
  });
});
