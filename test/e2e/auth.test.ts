import { describe, expect, it } from 'vitest';
import { api, expectProblem, lastMail, newTenant, remember, signIn, uniqueEmail } from './support/client';

describe('magic-link sign-in', () => {
  it('accepts a request with 202 and mails a token', async () => {
    const email = uniqueEmail('mail');
    const res = await api('POST', '/auth/magic-link', { body: { email } });
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ status: 'accepted' });
    const mail = lastMail(email);
    expect(mail.subject).toBeTruthy();
    expect(mail.text).toContain(mail.token);
    remember(mail.token);
  });

  it('rejects invalid emails and unknown fields with 400', async () => {
    expectProblem(await api('POST', '/auth/magic-link', { body: { email: 'not-an-email' } }), 400);
    const p = expectProblem(await api('POST', '/auth/magic-link', { body: { email: uniqueEmail(), extra: 1 } }), 400);
    expect(p.errors?.length).toBeGreaterThan(0);
    expectProblem(await api('POST', '/auth/magic-link', { body: {} }), 400);
  });

  it('verifies a token once; reuse and garbage answer 401', async () => {
    const email = uniqueEmail('once');
    await api('POST', '/auth/magic-link', { body: { email } });
    const { token } = lastMail(email);
    remember(token);
    const ok = await api('POST', '/auth/magic-link/verify', { body: { token } });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({
      expires_in: 900,
      token_type: 'Bearer',
      access_token: expect.any(String),
      refresh_token: expect.any(String),
    });
    remember(ok.body.access_token, ok.body.refresh_token);
    expectProblem(await api('POST', '/auth/magic-link/verify', { body: { token } }), 401);
    expectProblem(await api('POST', '/auth/magic-link/verify', { body: { token: 'garbage' } }), 401);
  });

  it('creates an empty tenant on first sign-in and returns to it later', async () => {
    const email = uniqueEmail('again');
    const first = await signIn(email);
    expect((await api('GET', '/nodes', { auth: first.bearer })).body).toMatchObject({ data: [], total: 0 });
    await api('POST', '/nodes', { auth: first.bearer, body: { title: 'Mine' } });
    const second = await signIn(email);
    const list = await api<{ data: Array<{ title: string }> }>('GET', '/nodes', { auth: second.bearer });
    expect(list.body.data.map((n) => n.title)).toEqual(['Mine']);
  });

  it('limits magic-link requests per email with 429 and rate-limit headers', async () => {
    const email = uniqueEmail('limited');
    for (let i = 0; i < 5; i++) expect((await api('POST', '/auth/magic-link', { body: { email } })).status).toBe(202);
    const res = await api('POST', '/auth/magic-link', { body: { email } });
    expectProblem(res, 429);
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(res.headers.get('ratelimit-limit')).toBe('5');
    expect(res.headers.get('ratelimit-remaining')).toBe('0');
    expect(Number(res.headers.get('ratelimit-reset'))).toBeGreaterThan(0);
  });
});

describe('refresh tokens', () => {
  it('rotate, and reusing an old one revokes the whole family', async () => {
    const s = await newTenant('refresh');
    const next = await api('POST', '/auth/refresh', { body: { refresh_token: s.refresh_token } });
    expect(next.status).toBe(200);
    remember(next.body.access_token, next.body.refresh_token);
    expect(next.body.refresh_token).not.toBe(s.refresh_token);
    expect(next.body.access_token).not.toBe(s.access_token);
    expect((await api('GET', '/nodes', { auth: `Bearer ${next.body.access_token}` })).status).toBe(200);
    expectProblem(await api('POST', '/auth/refresh', { body: { refresh_token: s.refresh_token } }), 401);
    expectProblem(await api('POST', '/auth/refresh', { body: { refresh_token: next.body.refresh_token } }), 401);
  });

  it('reject garbage and missing tokens', async () => {
    expectProblem(await api('POST', '/auth/refresh', { body: { refresh_token: 'nope' } }), 401);
    expectProblem(await api('POST', '/auth/refresh', { body: {} }), 400);
  });
});

describe('authentication on protected endpoints', () => {
  const protectedRoutes: Array<[string, string]> = [
    ['GET', '/nodes'],
    ['POST', '/nodes'],
    ['GET', '/auth/api-keys'],
    ['GET', '/graph/seed'],
    ['GET', '/graph-health'],
    ['GET', '/para'],
    ['GET', '/captures'],
  ];
  for (const [method, path] of protectedRoutes) {
    it(`${method} ${path}: 401 with WWW-Authenticate for missing, malformed or bad credentials`, async () => {
      for (const auth of [
        undefined,
        'Basic abc',
        'Bearer not.a.jwt',
        'ApiKey key_01jd8x6q1bf5r3v2m9w7k4t0za.bogus-secret-value',
      ]) {
        const res = await api(method, path, {
          ...(auth ? { auth } : {}),
          ...(method === 'POST' ? { body: { title: 't' } } : {}),
        });
        expectProblem(res, 401);
        expect(res.headers.get('www-authenticate')).toMatch(/Bearer/);
      }
    });
  }
});
