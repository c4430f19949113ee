import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { unauthorized } from '@kg/contracts';
import { createMemoryKv } from '@kg/kv';
import { createLogger } from '@kg/logger';
import { createGatewayApp } from './app';
import { gatewayHttpSchema } from './config';
import type { GatewayPeers } from './peers';

const identity = {
  tenantId: 'tnt_01jd8x6q1bf5r3v2m9w7k4t0za',
  subject: 'usr_x',
  credential: { kind: 'api_key' as const, id: 'key_x' },
};

/** Peers faked at the client boundary: only what these tests call. */
const peers = {
  auth: {
    service: 'auth',
    as: () => ({
      apiKeys: {
        verify: async ({ key }: { key: string }) => {
          if (!key.startsWith('good.')) throw unauthorized();
          return { ...identity, credential: { kind: 'api_key' as const, id: key } };
        },
      },
      magicLink: { request: async () => ({ status: 'accepted', detail: 'sent' }) },
    }),
  },
  graph: { service: 'graph', as: () => ({ nodes: { create: async (input: unknown) => ({ echoed: input }) } }) },
} as unknown as GatewayPeers;

let server: Server;
let base: string;

/** The gateway on these fake peers, listening on a free port, with `env` as its settings. */
function listen(env: Record<string, string>, degraded?: () => Promise<string[]>): Server {
  const app = createGatewayApp({
    config: gatewayHttpSchema.parse(env),
    peers,
    kv: createMemoryKv(),
    logger: createLogger('test', 'silent'),
    keys: async () => {
      throw new Error('no keys');
    },
    ready: async () => true,
    ...(degraded ? { degraded } : {}),
  });
  return app.listen(0);
}

beforeAll(async () => {
  server = listen({
    MAGIC_LINK_PER_EMAIL_PER_HOUR: '2',
    JSON_BODY_LIMIT_BYTES: '1024',
    GRAPH_RATE_LIMIT_PER_CREDENTIAL_PER_MINUTE: '3',
  });
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

const call = (path: string, init: RequestInit & { key?: string } = {}) =>
  fetch(base + path, {
    ...init,
    headers: {
      'content-type': 'application/json',
      ...(init.key ? { authorization: `ApiKey ${init.key}` } : {}),
      ...init.headers,
    },
  });

describe('gateway', () => {
  it('/readyz stays 200 while a module is degraded and names it (the embedded server)', async () => {
    let degraded: string[] = ['vectors'];
    const probe = listen({}, async () => degraded);
    try {
      const url = `http://127.0.0.1:${(probe.address() as AddressInfo).port}/readyz`;
      const res = await fetch(url);
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ status: 'ready', degraded: ['vectors'] });
      degraded = [];
      expect(await (await fetch(url)).json()).toEqual({ status: 'ready' });
    } finally {
      await new Promise<void>((r) => probe.close(() => r()));
    }
  });

  it('answers 401 problem+json with WWW-Authenticate without credentials', async () => {
    const res = await call('/api/v1/nodes');
    expect(res.status).toBe(401);
    expect(res.headers.get('content-type')).toContain('application/problem+json');
    expect(res.headers.get('www-authenticate')).toContain('Bearer');
    expect(await res.json()).toMatchObject({ status: 401, title: 'Unauthorized' });
  });

  it('rejects an invalid bearer token and a wrong API key', async () => {
    expect((await call('/api/v1/nodes', { headers: { authorization: 'Bearer abc' } })).status).toBe(401);
    expect((await call('/api/v1/nodes', { key: 'bad.key' })).status).toBe(401);
  });

  it('validates bodies with field paths before calling the service', async () => {
    const res = await call('/api/v1/nodes', {
      method: 'POST',
      key: 'good.key',
      body: JSON.stringify({ title: '', extra: 1 }),
    });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { errors: Array<{ path: string }> };
    expect(body.errors.map((e) => e.path)).toEqual(expect.arrayContaining(['title']));
  });

  it('answers 410 for DELETE /para/:id', async () => {
    expect((await call('/api/v1/para/para_x', { method: 'DELETE', key: 'good.key' })).status).toBe(410);
  });

  it('limits magic-link requests per email with Retry-After and RateLimit headers', async () => {
    const send = () =>
      call('/api/v1/auth/magic-link', { method: 'POST', body: JSON.stringify({ email: 'A@example.com' }) });
    expect((await send()).status).toBe(202);
    const second = await send();
    expect(second.status).toBe(202);
    expect(second.headers.get('ratelimit-remaining')).toBe('0');
    const third = await send();
    expect(third.status).toBe(429);
    expect(Number(third.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(third.headers.get('ratelimit-limit')).toBe('2');
  });

  it('rate-limits graph endpoints per credential with 429 and RateLimit headers', async () => {
    const statuses: number[] = [];
    let last: Response | null = null;
    for (let i = 0; i < 4; i++) {
      last = await call('/api/v1/graph/seed', { key: 'good.rate' });
      statuses.push(last.status);
    }
    expect(statuses.slice(0, 3).every((s) => s !== 429)).toBe(true);
    expect(statuses[3]).toBe(429);
    expect(last?.headers.get('ratelimit-limit')).toBe('3');
    expect(last?.headers.get('ratelimit-remaining')).toBe('0');
    expect(Number(last?.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it('caps JSON bodies (413) and rejects malformed JSON (400)', async () => {
    const big = await call('/api/v1/nodes', {
      method: 'POST',
      key: 'good.key',
      body: JSON.stringify({ title: 'x'.repeat(2000) }),
    });
    expect(big.status).toBe(413);
    const bad = await call('/api/v1/nodes', { method: 'POST', key: 'good.key', body: '{"title":' });
    expect(bad.status).toBe(400);
  });

  it('serves an OpenAPI 3.1 document generated from the route table', async () => {
    const doc = (await (await call('/api/v1/openapi.json')).json()) as {
      openapi: string;
      paths: Record<string, unknown>;
    };
    expect(doc.openapi).toBe('3.1.0');
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining(['/nodes', '/nodes/{id}', '/nodes/{id}/links', '/auth/api-keys/{id}']),
    );
  });

  it('sends security headers and no x-powered-by', async () => {
    const res = await call('/healthz');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('x-powered-by')).toBeNull();
  });

  it('hashes no API answer into an ETag (every JSON answer is fresh; hashing it cost a read its time)', async () => {
    const res = await call('/healthz');
    expect(res.status).toBe(200);
    expect(res.headers.get('etag')).toBeNull();
  });
});

describe('CORS', () => {
  it('lets a dashboard on an allowed origin read the rate-limit and search-fallback headers', async () => {
    const corsServer = listen({ CORS_ORIGINS: 'https://dash.example' });
    try {
      const port = (corsServer.address() as AddressInfo).port;
      const res = await fetch(`http://127.0.0.1:${port}/healthz`, { headers: { origin: 'https://dash.example' } });
      const exposed = (res.headers.get('access-control-expose-headers') ?? '').toLowerCase().split(',');
      for (const name of ['retry-after', 'ratelimit', 'ratelimit-policy', 'kg-search-fallback'])
        expect(exposed.map((h) => h.trim())).toContain(name);
    } finally {
      await new Promise<void>((r) => corsServer.close(() => r()));
    }
  });
});
