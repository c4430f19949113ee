import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { api, expectUnauthorized, newTenant, type Session } from './support/client';
import { call, callOk, httpClient, startHttpMcp } from './support/mcp';

const apiUrl = () => `${inject('baseUrl')}/api/v1`;

async function apiKey(session: Session): Promise<string> {
  const res = await api<{ key: string }>('POST', '/auth/api-keys', {
    auth: session.bearer,
    body: { name: 'mcp-http' },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.key;
}

const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
};

/** A raw POST to the MCP endpoint, as a client would send it. */
async function post(url: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  let parsed: any = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // an event stream: kept as text
  }
  return { status: res.status, headers: res.headers, body: parsed };
}

describe('kg-mcp over streamable HTTP', () => {
  let mcp: Awaited<ReturnType<typeof startHttpMcp>>;
  let bystander: Session;

  beforeAll(async () => {
    // SVC_TOKEN set on the server must never act for a caller (no shared credential over HTTP).
    bystander = await newTenant('mcp-bystander');
    const res = await api('POST', '/nodes', { auth: bystander.bearer, body: { title: 'Bystander secret plan' } });
    expect(res.status).toBe(201);
    mcp = await startHttpMcp({ SVC_API_URL: apiUrl(), SVC_TOKEN: await apiKey(bystander) });
  });
  afterAll(async () => {
    await mcp?.stop();
  });

  it('answers 401 without the caller’s own credential, or with a refused one', async () => {
    const none = await post(mcp.url, INITIALIZE);
    expectUnauthorized(none);
    expect(none.body.detail).toContain('Send your own credential');
    const bad = await post(mcp.url, INITIALIZE, { authorization: 'Bearer not-a-token' });
    expectUnauthorized(bad);
    expect(bad.body.detail).toContain('Invalid or expired access token');
    const revoked = await newTenant('mcp-revoked');
    const key = await apiKey(revoked);
    const id = key.slice(0, key.indexOf('.'));
    expect((await api('DELETE', `/auth/api-keys/${id}`, { auth: revoked.bearer })).status).toBe(204);
    expectUnauthorized(await post(mcp.url, INITIALIZE, { authorization: `ApiKey ${key}` }));
  });

  it('keeps tenants apart: every call acts with its caller’s credential', async () => {
    const alice = await newTenant('mcp-alice');
    const bob = await newTenant('mcp-bob');
    const aliceKey = await apiKey(alice);
    // An API key sent as a bearer token (what most MCP hosts let a person configure) works too.
    const a = await httpClient(mcp.url, () => `Bearer ${aliceKey}`);
    const b = await httpClient(mcp.url, () => bob.bearer);
    try {
      const node = await callOk(a, 'create_node', { title: 'Alice quarterly roadmap' });
      expect((await callOk(a, 'search_nodes', { query: 'roadmap', mode: 'keyword' })).total).toBe(1);

      const stolen = await call(b, 'get_node', { id: node.id });
      expect(stolen).toMatchObject({ isError: true, text: '404 Not found: Node not found' });
      expect((await callOk(b, 'search_nodes', { query: 'roadmap', mode: 'keyword' })).total).toBe(0);
      await expect(b.readResource({ uri: `kg://nodes/${node.id}` })).rejects.toThrow(/404/);
      expect((await b.listResources()).resources).toEqual([]);
      const linked = await call(b, 'link_nodes', { source_id: node.id, links: [{ target_id: node.id }] });
      expect(linked.isError).toBe(true);

      // Neither caller sees what the server's own SVC_TOKEN could.
      expect((await callOk(a, 'search_nodes', { query: 'bystander', mode: 'keyword' })).total).toBe(0);
      expect((await a.listResources()).resources.map((r) => r.name)).toEqual(['Alice quarterly roadmap']);
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('refuses another caller on a session (403) and an unknown session (404)', async () => {
    const owner = await newTenant('mcp-owner');
    const intruder = await newTenant('mcp-intruder');
    const client = await httpClient(mcp.url, () => owner.bearer);
    try {
      const sid = client.sessionId()!;
      expect(sid).toBeTruthy();
      const list = { jsonrpc: '2.0', id: 2, method: 'tools/list' };
      const hijack = await post(mcp.url, list, {
        authorization: intruder.bearer,
        'mcp-session-id': sid,
        'mcp-protocol-version': '2025-06-18',
      });
      expect(hijack.status).toBe(403);
      expect(hijack.body.detail).toBe('This MCP session belongs to another caller');
      const unknown = await post(mcp.url, list, { authorization: owner.bearer, 'mcp-session-id': 'no-such-session' });
      expect(unknown.status).toBe(404);
      // The owner's session still works.
      expect((await client.listTools()).tools.length).toBeGreaterThan(5);
    } finally {
      await client.close();
    }
  });

  it('keeps the session when the caller refreshes its access token', async () => {
    const s = await newTenant('mcp-refresh-http');
    let access = s.access_token;
    const client = await httpClient(mcp.url, () => `Bearer ${access}`);
    try {
      const sid = client.sessionId();
      const first = await callOk(client, 'create_node', { title: 'Before refresh' });
      const res = await api<{ access_token: string }>('POST', '/auth/refresh', {
        body: { refresh_token: s.refresh_token },
      });
      expect(res.status).toBe(200);
      expect(res.body.access_token).not.toBe(access);
      access = res.body.access_token;
      const read = await callOk(client, 'get_node', { id: first.id });
      expect(read.title).toBe('Before refresh');
      expect(client.sessionId()).toBe(sid);
    } finally {
      await client.close();
    }
  });
});
