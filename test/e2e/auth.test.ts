import { beforeAll, describe, expect, it } from 'vitest';
import { MagicLinkAccepted, TokenPair } from '@kg/contracts';
import {
  api,
  conforms,
  createNode,
  expectProblem,
  expectUnauthorized,
  lastMail,
  newTenant,
  requestMagicLink,
  signIn,
  uniqueEmail,
  UNKNOWN_NODE,
  type Session,
} from './support/client';

describe('POST /auth/magic-link', () => {
  it('accepts with 202 and mails a one-time token to the address', async () => {
    const email = uniqueEmail('mail');
    const { res, mail } = await requestMagicLink(email);
    expect(conforms(MagicLinkAccepted, res.body)).toEqual({ status: 'accepted', detail: expect.any(String) });
    expect(mail.to).toBe(email);
    expect(mail.subject.length).toBeGreaterThan(0);
    expect(mail.text).toContain(mail.token);
    expect(mail.token.length).toBeGreaterThanOrEqual(16);
    expect(lastMail(email).token).toBe(mail.token);
  });

  it('rejects invalid emails, missing and unknown fields with 400 and field errors', async () => {
    const longLocalPart = `${'a'.repeat(65)}@example.com`; // RFC 5321: at most 64 before the @
    for (const body of [{ email: 'not-an-email' }, { email: '' }, { email: 42 }, {}, { email: longLocalPart }]) {
      const p = expectProblem(await api('POST', '/auth/magic-link', { body }), 400);
      expect(p.errors?.[0]?.path, JSON.stringify(body)).toBe('email');
    }
    const p = expectProblem(await api('POST', '/auth/magic-link', { body: { email: uniqueEmail(), extra: 1 } }), 400);
    expect(p.errors?.length).toBeGreaterThan(0);
  });

  it('allows 5 requests per email per hour, then 429 with Retry-After and RateLimit headers', async () => {
    const email = uniqueEmail('limited');
    for (let i = 0; i < 5; i++) expect((await api('POST', '/auth/magic-link', { body: { email } })).status).toBe(202);
    const res = await api('POST', '/auth/magic-link', { body: { email } });
    expectProblem(res, 429);
    const retryAfter = res.headers.get('retry-after') ?? '';
    expect(retryAfter).toMatch(/^\d+$/);
    expect(Number(retryAfter)).toBeGreaterThan(0);
    expect(Number(retryAfter)).toBeLessThanOrEqual(3600);
    expect(res.headers.get('ratelimit-limit')).toBe('5');
    expect(res.headers.get('ratelimit-remaining')).toBe('0');
    expect(Number(res.headers.get('ratelimit-reset'))).toBeGreaterThan(0);
    // The quota is per email: another address from the same client is unaffected.
    expect((await api('POST', '/auth/magic-link', { body: { email: uniqueEmail('limited-other') } })).status).toBe(202);
  });
});

describe('POST /auth/magic-link/verify', () => {
  it('answers a Bearer token pair once; reuse, garbage and expired-looking tokens answer 401', async () => {
    const { mail } = await requestMagicLink(uniqueEmail('once'));
    const ok = await api('POST', '/auth/magic-link/verify', { body: { token: mail.token } });
    expect(ok.status).toBe(200);
    const pair = conforms(TokenPair, ok.body);
    expect(pair).toMatchObject({ expires_in: 900, token_type: 'Bearer' });
    expect(pair.access_token).not.toBe(pair.refresh_token);
    const claims = JSON.parse(Buffer.from(pair.access_token.split('.')[1]!, 'base64url').toString()) as Record<
      string,
      number
    >;
    expect(claims['exp']! - claims['iat']!).toBe(900);
    expect((await api('GET', '/nodes', { auth: `Bearer ${pair.access_token}` })).status).toBe(200);
    expectProblem(await api('POST', '/auth/magic-link/verify', { body: { token: mail.token } }), 401);
    expectProblem(await api('POST', '/auth/magic-link/verify', { body: { token: 'garbage' } }), 401);
    expectProblem(await api('POST', '/auth/magic-link/verify', { body: { token: `${mail.token}x` } }), 401);
    expectProblem(await api('POST', '/auth/magic-link/verify', { body: {} }), 400);
  });

  it('creates an empty tenant on first sign-in and returns to the same tenant later', async () => {
    const email = uniqueEmail('again');
    const first = await signIn(email);
    expect((await api('GET', '/nodes', { auth: first.bearer })).body).toEqual({
      data: [],
      total: 0,
      page: 1,
      per_page: 20,
    });
    const node = await createNode(first.bearer, { title: 'Mine' });
    const second = await signIn(email);
    expect(second.access_token).not.toBe(first.access_token);
    const list = await api<{ data: Array<{ id: string; title: string }> }>('GET', '/nodes', { auth: second.bearer });
    expect(list.body.data.map((n) => [n.id, n.title])).toEqual([[node.id, 'Mine']]);
    const shouting = await signIn(email.toUpperCase());
    expect((await api('GET', `/nodes/${node.id}`, { auth: shouting.bearer })).status).toBe(200);
    const stranger = await newTenant('again-other');
    expect((await api('GET', '/nodes', { auth: stranger.bearer })).body).toMatchObject({ data: [], total: 0 });
  });
});

describe('POST /auth/refresh', () => {
  it('rotates the pair; reusing an old refresh token revokes the whole family', async () => {
    const s = await newTenant('refresh');
    const next = await api('POST', '/auth/refresh', { body: { refresh_token: s.refresh_token } });
    expect(next.status).toBe(200);
    const pair = conforms(TokenPair, next.body);
    expect(pair).toMatchObject({ expires_in: 900, token_type: 'Bearer' });
    expect(pair.refresh_token).not.toBe(s.refresh_token);
    expect(pair.access_token).not.toBe(s.access_token);
    expect((await api('GET', '/nodes', { auth: `Bearer ${pair.access_token}` })).status).toBe(200);
    const third = await api('POST', '/auth/refresh', { body: { refresh_token: pair.refresh_token } });
    expect(third.status).toBe(200);
    // Reuse of the first (already rotated) token: 401, and every later token of the family dies.
    expectProblem(await api('POST', '/auth/refresh', { body: { refresh_token: s.refresh_token } }), 401);
    expectProblem(await api('POST', '/auth/refresh', { body: { refresh_token: third.body.refresh_token } }), 401);
    expectProblem(await api('POST', '/auth/refresh', { body: { refresh_token: pair.refresh_token } }), 401);
  });

  it('accepts a magic-link token only once even when raced; a raced refresh token serves both clients', async () => {
    const { mail } = await requestMagicLink(uniqueEmail('race'));
    const verifies = await Promise.all(
      [1, 2, 3].map(() => api('POST', '/auth/magic-link/verify', { body: { token: mail.token } })),
    );
    expect(verifies.map((r) => r.status).sort()).toEqual([200, 401, 401]);
    // A refresh token raced by two clients of one session: both succeed (the 10 s grace window of
    // the immediately previous token, docs/API.md "Sign-in"), each with its own live successor.
    const s = await newTenant('refresh-race');
    const refreshes = await Promise.all(
      [1, 2].map(() => api('POST', '/auth/refresh', { body: { refresh_token: s.refresh_token } })),
    );
    expect(refreshes.map((r) => r.status)).toEqual([200, 200]);
    for (const r of refreshes)
      expect((await api('POST', '/auth/refresh', { body: { refresh_token: r.body.refresh_token } })).status).toBe(200);
  });

  it('revokes only the family that was reused, not other sign-ins of the same person', async () => {
    const email = uniqueEmail('families');
    const one = await signIn(email);
    const two = await signIn(email);
    const next = await api('POST', '/auth/refresh', { body: { refresh_token: one.refresh_token } });
    // Its successor used, the first token is no longer the previous one: no grace window, a reuse.
    await api('POST', '/auth/refresh', { body: { refresh_token: next.body.refresh_token } });
    expectProblem(await api('POST', '/auth/refresh', { body: { refresh_token: one.refresh_token } }), 401);
    const other = await api('POST', '/auth/refresh', { body: { refresh_token: two.refresh_token } });
    expect(other.status).toBe(200);
  });

  it('rejects garbage, access tokens and malformed bodies', async () => {
    const s = await newTenant('refresh-bad');
    expectProblem(await api('POST', '/auth/refresh', { body: { refresh_token: 'nope' } }), 401);
    expectProblem(await api('POST', '/auth/refresh', { body: { refresh_token: s.access_token.slice(0, 200) } }), 401);
    expectProblem(await api('POST', '/auth/refresh', { body: { refresh_token: `${s.refresh_token}x` } }), 401);
    // {} is the dashboard's cookie-session form; without the cookie it is a missing credential.
    expectProblem(await api('POST', '/auth/refresh', { body: {} }), 401);
    expectProblem(await api('POST', '/auth/refresh', { body: { refresh_token: s.refresh_token, extra: 1 } }), 400);
    expect((await api('POST', '/auth/refresh', { body: { refresh_token: s.refresh_token } })).status).toBe(200);
  });
});

const b64url = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');

describe('authentication on protected endpoints', () => {
  let s: Session;
  let badCredentials: Array<[string, string | undefined]>;
  beforeAll(async () => {
    s = await newTenant('guard');
    const [, payload, signature] = s.access_token.split('.');
    const claims = JSON.parse(Buffer.from(payload!, 'base64url').toString()) as Record<string, unknown>;
    badCredentials = [
      ['missing', undefined],
      ['unknown scheme', `Basic ${Buffer.from('a:b').toString('base64')}`],
      ['empty bearer', 'Bearer '],
      ['not a JWT', 'Bearer not.a.jwt'],
      ['alg none', `Bearer ${b64url({ alg: 'none', typ: 'JWT' })}.${payload}.`],
      [
        'tampered claims',
        `Bearer ${s.access_token.split('.')[0]}.${b64url({ ...claims, tnt: 'tnt_01jd8x6q1bf5r3v2m9w7k4t0za' })}.${signature}`,
      ],
      ['expired claims', `Bearer ${s.access_token.split('.')[0]}.${b64url({ ...claims, exp: 1 })}.${signature}`],
      ['API key without secret', 'ApiKey key_01jd8x6q1bf5r3v2m9w7k4t0za'],
      ['unknown API key', 'ApiKey key_01jd8x6q1bf5r3v2m9w7k4t0za.bogus-secret-value-000000000000'],
      ['JWT as API key', `ApiKey ${s.access_token}`],
    ];
  });

  const routes: Array<[string, string, unknown?]> = [
    ['GET', '/nodes'],
    ['POST', '/nodes', { title: 't' }],
    ['GET', `/nodes/${UNKNOWN_NODE}`],
    ['PATCH', `/nodes/${UNKNOWN_NODE}`, { title: 't' }],
    ['DELETE', `/nodes/${UNKNOWN_NODE}`],
    ['PATCH', `/nodes/${UNKNOWN_NODE}/links`, { links: [] }],
    ['GET', `/nodes/${UNKNOWN_NODE}/related?limit=5`],
    ['GET', '/auth/api-keys'],
    ['POST', '/auth/api-keys', { name: 'x' }],
    ['DELETE', '/auth/api-keys/key_01jd8x6q1bf5r3v2m9w7k4t0za'],
    ['GET', '/graph/seed'],
    ['GET', `/graph/neighbors/${UNKNOWN_NODE}`],
    ['GET', '/graph-health'],
    ['GET', '/para/tree'],
    ['GET', '/para'],
    ['POST', '/para', { category: 'projects', label: 'x' }],
    ['DELETE', '/para/para_01jd8x6q1bf5r3v2m9w7k4t0za'],
    ['GET', '/captures'],
    ['POST', '/captures', { title: 'x', content_type: 'note', source: 'api' }],
    ['POST', '/context', {}],
    ['GET', '/links/suggestions?text=x'],
  ];
  for (const [method, path, body] of routes) {
    it(`${method} ${path}: 401 with WWW-Authenticate for missing, malformed or invalid credentials`, async () => {
      for (const [what, auth] of badCredentials) {
        const res = await api(method, path, { ...(auth ? { auth } : {}), ...(body ? { body } : {}) });
        expect(res.status, `${what}: ${JSON.stringify(res.body)}`).toBe(401);
        expectUnauthorized(res);
      }
    });
  }
});
