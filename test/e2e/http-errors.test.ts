import { beforeAll, describe, expect, it } from 'vitest';
import { api, expectProblem, newTenant, type Session } from './support/client';

let s: Session;
beforeAll(async () => {
  s = await newTenant('http');
});

describe('the HTTP surface', () => {
  it('answers 400 problem+json for a malformed %-escape in a path', async () => {
    const p = expectProblem(await api('GET', '/nodes/%E0%A4%A', { auth: s.bearer }), 400);
    expect(p.detail).toMatch(/percent-encoding/);
    expectProblem(await api('DELETE', '/auth/api-keys/%ZZ', { auth: s.bearer }), 400);
  });

  it('answers 405 problem+json with Allow for a method a known path does not take', async () => {
    for (const [method, path, allow] of [
      ['PUT', '/nodes/node_01jd8x6q1bf5r3v2m9w7k4t0za', 'GET, HEAD, PATCH, DELETE'],
      ['DELETE', '/nodes', 'GET, HEAD, POST'],
      ['GET', '/auth/magic-link/verify', 'POST'],
      ['PATCH', '/graph-health', 'GET, HEAD'],
    ] as const) {
      const res = await api(method, path, { auth: s.bearer, ...(method === 'GET' ? {} : { body: {} }) });
      expectProblem(res, 405);
      expect(res.headers.get('allow'), `${method} ${path}`).toBe(allow);
    }
    expectProblem(await api('PUT', '/no-such-path', { body: {} }), 404);
  });

  it('answers 400 when an operation that takes a JSON body gets none, and changes nothing', async () => {
    const node = await api('POST', '/nodes', { auth: s.bearer, body: { title: 'Kept as it is' } });
    expect(node.status).toBe(201);
    for (const [method, path] of [
      ['PATCH', `/nodes/${node.body.id}`],
      ['POST', '/nodes'],
      ['PATCH', `/nodes/${node.body.id}/links`],
      ['POST', '/auth/api-keys'],
    ] as const) {
      const p = expectProblem(await api(method, path, { auth: s.bearer }), 400);
      expect(p.errors, `${method} ${path}`).toEqual([{ path: 'body', message: expect.stringMatching(/required/) }]);
    }
    const after = await api('GET', `/nodes/${node.body.id}`, { auth: s.bearer });
    expect(after.body).toMatchObject({ title: 'Kept as it is', updated_at: node.body.updated_at });
    expect((await api('PATCH', `/nodes/${node.body.id}`, { auth: s.bearer, body: {} })).status).toBe(200);
  });

  it('rejects unknown query parameters on operations that take none', async () => {
    const p = expectProblem(await api('GET', '/auth/api-keys?debug=1', { auth: s.bearer }), 400);
    expect(p.errors).toEqual([{ path: 'query.debug', message: 'unknown field' }]);
  });

  it('echoes a request id (X-Request-Id) on every answer', async () => {
    const res = await api('GET', '/nodes', { auth: s.bearer, headers: { 'x-request-id': 'e2e-trace-1' } });
    expect(res.headers.get('x-request-id')).toBe('e2e-trace-1');
    expect((await api('GET', '/nodes', { auth: s.bearer })).headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });
});
