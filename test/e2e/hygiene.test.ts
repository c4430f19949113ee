import { beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { api, expectProblem, newTenant, type Session } from './support/client';

let s: Session;
beforeAll(async () => {
  s = await newTenant('hygiene');
});

describe('HTTP hygiene', () => {
  it('answers health and readiness', async () => {
    expect((await fetch(`${inject('baseUrl')}/healthz`)).status).toBe(200);
    expect((await fetch(`${inject('baseUrl')}/readyz`)).status).toBe(200);
  });

  it('caps JSON bodies at 2 MiB (413) and rejects malformed JSON (400)', async () => {
    const big = await api('POST', '/nodes', {
      auth: s.bearer,
      body: { title: 'big', content: 'x'.repeat(2 * 1024 * 1024 + 10) },
    });
    expectProblem(big, 413);
    expectProblem(await api('POST', '/nodes', { auth: s.bearer, raw: '{"title": ' }), 400);
    const near = await api('POST', '/nodes', {
      auth: s.bearer,
      body: { title: 'near', content: 'x'.repeat(1_000_000) },
    });
    expect(near.status).toBe(201);
  });

  it('rejects non-JSON bodies with 415', async () => {
    expectProblem(
      await api('POST', '/nodes', { auth: s.bearer, raw: 'title=x', headers: { 'content-type': 'text/plain' } }),
      415,
    );
  });

  it('sends security headers and hides the framework', async () => {
    const res = await api('GET', '/nodes', { auth: s.bearer });
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('x-powered-by')).toBeNull();
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('answers unknown routes with 404 problem+json and never leaks internals', async () => {
    const p = expectProblem(await api('GET', '/does-not-exist', { auth: s.bearer }), 404);
    expect(JSON.stringify(p)).not.toMatch(/stack|select |at Object/i);
  });
});
