import { beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { api, expectProblem, newTenant, type Session } from './support/client';

let s: Session;
beforeAll(async () => {
  s = await newTenant('hygiene');
});

const MiB = 1024 * 1024;

describe('HTTP hygiene', () => {
  it('answers health and readiness outside /api/v1', async () => {
    for (const p of ['/healthz', '/readyz']) {
      const res = await fetch(`${inject('baseUrl')}${p}`);
      expect(res.status, p).toBe(200);
      await res.arrayBuffer();
    }
  });

  it('caps JSON bodies at 2 MiB with 413 problem+json, and accepts a 1 MB node body', async () => {
    const big = await api('POST', '/nodes', {
      auth: s.bearer,
      body: { title: 'big', content: 'x'.repeat(2 * MiB + 10) },
    });
    const p = expectProblem(big, 413);
    expect(p.type).toContain('payload-too-large');
    expectProblem(
      await api('POST', '/auth/magic-link', { raw: JSON.stringify({ email: 'a@b.test', pad: 'x'.repeat(3 * MiB) }) }),
      413,
    );
    const near = await api('POST', '/nodes', {
      auth: s.bearer,
      body: { title: 'near', content: 'x'.repeat(1_000_000) },
    });
    expect(near.status).toBe(201);
    expect(near.body.body_markdown).toHaveLength(1_000_000);
    expect(
      expectProblem(
        await api('POST', '/nodes', { auth: s.bearer, body: { title: 'over', content: 'x'.repeat(1_000_001) } }),
        400,
      ).errors?.[0]?.path,
    ).toBe('content');
  });

  it('rejects malformed JSON with 400 problem+json on public and protected routes', async () => {
    for (const raw of ['{"title": ', '{title: "x"}', "{'title':'x'}", '{"title":"x"} trailing']) {
      const p = expectProblem(await api('POST', '/nodes', { auth: s.bearer, raw }), 400);
      expect(JSON.stringify(p), raw).not.toMatch(/SyntaxError|at JSON\.parse|node_modules/);
    }
    expectProblem(await api('POST', '/auth/magic-link', { raw: '{"email":' }), 400);
    expectProblem(
      await api('PATCH', `/nodes/node_01jd8x6q1bf5r3v2m9w7k4t0za/links`, { auth: s.bearer, raw: '{"links": [' }),
      400,
    );
  });

  it('rejects non-JSON bodies with 415', async () => {
    const p = expectProblem(
      await api('POST', '/nodes', {
        auth: s.bearer,
        raw: 'title=x',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      }),
      415,
    );
    expect(p.type).toContain('unsupported-media-type');
    expectProblem(
      await api('POST', '/nodes', { auth: s.bearer, raw: '{"title":"x"}', headers: { 'content-type': 'text/plain' } }),
      415,
    );
  });

  it('sends security headers and hides the framework on success and error answers alike', async () => {
    const answers = [
      await api('GET', '/nodes', { auth: s.bearer }),
      await api('GET', '/nodes'),
      await api('GET', '/nodes/node_01jd8x6q1bf5r3v2m9w7k4t0za', { auth: s.bearer }),
      await api('GET', '/healthz'),
    ];
    for (const res of answers) {
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(res.headers.get('x-powered-by')).toBeNull();
      expect(res.headers.get('content-security-policy')).toBeTruthy();
      expect(res.headers.get('access-control-allow-origin')).toBeNull();
    }
  });

  it('answers unknown routes under /api/v1 with 404 problem+json and never leaks internals', async () => {
    for (const path of ['/does-not-exist', '/nodes/x/y/z', '/v2/nodes']) {
      const p = expectProblem(await api('GET', path, { auth: s.bearer }), 404);
      expect(p.type).toContain('not-found');
      expect(JSON.stringify(p)).not.toMatch(/stack|select |at Object|\/work\//i);
    }
  });
});
