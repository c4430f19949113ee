import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fakePeers, startTestGateway } from '../testing';

const identity = {
  tenantId: 'tnt_01jd8x6q1bf5r3v2m9w7k4t0za',
  subject: 'usr_x',
  credential: { kind: 'api_key', id: 'key_x' },
};
const auth = { authorization: 'ApiKey key_x.secret' };
const json = { ...auth, 'content-type': 'application/json' };

let gateway: Awaited<ReturnType<typeof startTestGateway>>;
beforeAll(async () => {
  gateway = await startTestGateway({
    env: { JSON_BODY_LIMIT_BYTES: '1024' },
    peers: fakePeers({
      auth: { apiKeys: { verify: async () => identity } },
      graph: {
        nodes: {
          get: async () => {
            throw new Error('select * from secret_table failed');
          },
          list: async () => ({ data: [], total: 0, page: 1, per_page: 20 }),
        },
        views: { health: async () => ({ total_nodes: 0, validated_nodes: 0, total_links: 0, stale_nodes: 0 }) },
      },
      captures: { stats: async () => ({ total: 0, pending: 0 }) },
    }),
  });
});
afterAll(() => gateway.close());

const problemOf = async (res: Response, status: number) => {
  expect(res.status).toBe(status);
  expect(res.headers.get('content-type')).toContain('application/problem+json');
  return (await res.json()) as { detail: string; errors?: Array<{ path: string; message: string }> };
};

describe('requests the routes never see', () => {
  it('a malformed %-escape in a path answers 400, without echoing it', async () => {
    const p = await problemOf(await gateway.fetch('/api/v1/nodes/%E0%A4%A', { headers: auth }), 400);
    expect(p.detail).not.toContain('%E0');
  });

  it('an unknown method on a known path answers 405 with Allow', async () => {
    const res = await gateway.fetch('/api/v1/nodes/node_x', { method: 'PUT', headers: json, body: '{}' });
    await problemOf(res, 405);
    expect(res.headers.get('allow')).toBe('GET, HEAD, PATCH, DELETE');
    const tree = await gateway.fetch('/api/v1/para/tree', { method: 'POST', headers: auth });
    expect(tree.status).toBe(405);
    expect(tree.headers.get('allow')).toBe('GET, HEAD');
    const rescan = await gateway.fetch('/api/v1/para/rescan', { method: 'PUT', headers: auth });
    expect(rescan.headers.get('allow')).toBe('POST');
    expect((await gateway.fetch('/api/v1/nope', { method: 'PUT' })).status).toBe(404);
  });

  it('unknown query parameters answer 400 on operations without any', async () => {
    const p = await problemOf(await gateway.fetch('/api/v1/graph-health?verbose=1', { headers: auth }), 400);
    expect(p.errors).toEqual([{ path: 'query.verbose', message: 'unknown field' }]);
  });

  it('a body sent to an operation that takes none is ignored, never a 413', async () => {
    // fetch() refuses a GET body; node:http does not.
    const status = await new Promise<number>((resolve, reject) => {
      const body = JSON.stringify({ filler: 'x'.repeat(2000) });
      const headers = { ...json, 'content-length': String(body.length) };
      const req = request(`${gateway.base}/api/v1/graph-health`, { method: 'GET', headers }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
      req.end(body);
    });
    expect(status).toBe(200);
    const big = await gateway.fetch('/api/v1/auth/magic-link/verify', {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ token: 'x'.repeat(2000) }),
    });
    expect(big.status).toBe(413);
  });

  it('NUL in any string field answers 400 naming the field', async () => {
    for (const [body, path] of [
      [{ title: 'a\u0000b' }, 'title'],
      [{ title: 'ok', content: 'a\u0000b' }, 'content'],
      [{ title: 'ok', tags: ['fine', 'a\u0000b'] }, 'tags.1'],
    ] as const) {
      const res = await gateway.fetch('/api/v1/nodes', { method: 'POST', headers: json, body: JSON.stringify(body) });
      const p = await problemOf(res, 400);
      expect(p.errors).toEqual([{ path, message: 'must not contain NUL characters (\\u0000)' }]);
    }
    const q = await problemOf(await gateway.fetch('/api/v1/nodes?query=a%00b', { headers: auth }), 400);
    expect(q.errors?.[0]?.path).toBe('query.query');
    const id = await problemOf(await gateway.fetch('/api/v1/nodes/a%00b', { headers: auth }), 400);
    expect(id.errors?.[0]?.path).toBe('path.id');
  });
});

describe('the request log', () => {
  it('logs the path without its query string, under a request id the response carries', async () => {
    const secret = 'tok_' + 'Q'.repeat(30);
    const res = await gateway.fetch(`/api/v1/graph-health?token=${secret}`, {
      headers: { ...auth, 'x-request-id': 'trace-123' },
    });
    expect(res.headers.get('x-request-id')).toBe('trace-123');
    await new Promise((r) => setTimeout(r, 50));
    const line = gateway.lines.find((l) => l.req?.id === 'trace-123' && l.msg === 'request completed');
    expect(line?.req).toMatchObject({ method: 'GET', path: '/api/v1/graph-health' });
    expect(JSON.stringify(gateway.lines)).not.toContain(secret);
    const fresh = await gateway.fetch('/api/v1/graph-health', { headers: { ...auth, 'x-request-id': 'bad id!' } });
    expect(fresh.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('logs an unexpected error once, at error level, with its stack and the request id; the client gets no detail', async () => {
    const before = gateway.lines.length;
    const res = await gateway.fetch('/api/v1/nodes/node_01jd8x6q1bf5r3v2m9w7k4t0za', {
      headers: { ...auth, 'x-request-id': 'boom-1' },
    });
    const p = await problemOf(res, 500);
    expect(JSON.stringify(p)).not.toContain('secret_table');
    await new Promise((r) => setTimeout(r, 50));
    const errors = gateway.lines.slice(before).filter((l) => l.level >= 50);
    expect(errors).toHaveLength(1);
    expect(errors[0]!.err?.stack).toContain('secret_table');
    expect(errors[0]!.req?.id).toBe('boom-1');
  });
});
