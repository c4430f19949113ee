import { describe, expect, it } from 'vitest';
import { CookieSession, TokenPair } from '@kg/contracts';
import {
  api,
  conforms,
  expectProblem,
  remember,
  requestMagicLink,
  signIn,
  uniqueEmail,
  type Res,
} from './support/client';

/**
 * The dashboard's cookie session (docs/API.md "Sign-in"), with a cookie jar kept by hand.
 * PUBLIC_URL is http://127.0.0.1:<port> in both test modes, so the cookies are not Secure.
 */
interface Jar {
  refresh: string;
  csrf: string;
}

function cookiesFrom(res: Res): { raw: string[]; jar: Jar } {
  const raw = res.headers.getSetCookie();
  const value = (name: string) => {
    const c = raw.find((s) => s.startsWith(`${name}=`));
    return c ? decodeURIComponent(c.slice(name.length + 1).split(';')[0]!) : '';
  };
  const jar = { refresh: value('kg_refresh'), csrf: value('kg_csrf') };
  remember(jar.refresh, jar.csrf);
  return { raw, jar };
}

const attributes = (raw: string[], name: string) =>
  raw
    .find((s) => s.startsWith(`${name}=`))!
    .split(';')
    .slice(1)
    .map((a) => a.trim().toLowerCase());

const cookieHeader = (jar: Partial<Jar>) =>
  [jar.refresh !== undefined ? `kg_refresh=${jar.refresh}` : '', jar.csrf !== undefined ? `kg_csrf=${jar.csrf}` : '']
    .filter(Boolean)
    .join('; ');

async function cookieSignIn() {
  const { mail } = await requestMagicLink(uniqueEmail('cookie'));
  const res = await api('POST', '/auth/magic-link/verify', {
    body: { token: mail.token },
    headers: { 'x-kg-session': 'cookie' },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return { res, body: conforms(CookieSession, res.body), ...cookiesFrom(res) };
}

const cookieRefresh = (jar: Partial<Jar>, csrf?: string) =>
  api('POST', '/auth/refresh', {
    body: {},
    headers: {
      'x-kg-session': 'cookie',
      cookie: cookieHeader(jar),
      ...(csrf !== undefined ? { 'x-csrf-token': csrf } : {}),
    },
  });

describe('dashboard cookie session', () => {
  it('sign-in with X-KG-Session: cookie keeps the refresh token out of the body, in an HttpOnly cookie', async () => {
    const { res, body, raw, jar } = await cookieSignIn();
    expect(body).not.toHaveProperty('refresh_token');
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(body).toMatchObject({ expires_in: 900, token_type: 'Bearer' });
    expect(jar.refresh).toMatch(/^rtk_/);
    expect(jar.csrf).toBe(body.csrf_token);
    expect(attributes(raw, 'kg_refresh')).toEqual(
      expect.arrayContaining(['httponly', 'samesite=strict', 'path=/api/v1/auth', 'max-age=2592000']),
    );
    expect(attributes(raw, 'kg_csrf')).toEqual(expect.arrayContaining(['samesite=strict', 'path=/']));
    expect(attributes(raw, 'kg_csrf')).not.toContain('httponly');
    // PUBLIC_URL is http on 127.0.0.1 here: no Secure (the unit test covers https).
    expect(attributes(raw, 'kg_refresh')).not.toContain('secure');
    expect((await api('GET', '/auth/me', { auth: `Bearer ${body.access_token}` })).status).toBe(200);
  });

  it('refresh from the cookie needs X-CSRF-Token equal to kg_csrf (403), and a cookie (401)', async () => {
    const { jar } = await cookieSignIn();
    expectProblem(await cookieRefresh(jar), 403);
    expectProblem(await cookieRefresh(jar, 'wrong'), 403);
    expectProblem(await cookieRefresh({ refresh: jar.refresh }, jar.csrf), 403);
    expectProblem(await cookieRefresh({ csrf: jar.csrf }, jar.csrf), 401);
    const ok = await cookieRefresh(jar, jar.csrf);
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    const next = cookiesFrom(ok);
    expect(conforms(CookieSession, ok.body).csrf_token).toBe(next.jar.csrf);
    expect(next.jar.refresh).not.toBe(jar.refresh);
    expect(next.jar.csrf).not.toBe(jar.csrf);
    expect((await cookieRefresh(next.jar, next.jar.csrf)).status).toBe(200);
  });

  it('logout revokes the family and clears both cookies (204)', async () => {
    const { jar } = await cookieSignIn();
    expectProblem(
      await api('POST', '/auth/logout', { body: {}, headers: { cookie: cookieHeader(jar), 'x-csrf-token': 'no' } }),
      403,
    );
    const out = await api('POST', '/auth/logout', {
      body: {},
      headers: { cookie: cookieHeader(jar), 'x-csrf-token': jar.csrf },
    });
    expect(out.status).toBe(204);
    for (const name of ['kg_refresh', 'kg_csrf'])
      expect(attributes(out.headers.getSetCookie(), name)).toContain('max-age=0');
    expectProblem(await cookieRefresh(jar, jar.csrf), 401);
  });

  it('without the header nothing changes: bodies carry the refresh token; {} alone is a 401', async () => {
    const session = await signIn(uniqueEmail('body'));
    const res = await api('POST', '/auth/refresh', { body: { refresh_token: session.refresh_token } });
    expect(conforms(TokenPair, res.body).refresh_token).toMatch(/^rtk_/);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.getSetCookie()).toEqual([]);
    // No token and no cookie: a missing credential (401); signing out without a session changes nothing (204).
    expectProblem(await api('POST', '/auth/refresh', { body: {} }), 401);
    expect((await api('POST', '/auth/logout', { body: {} })).status).toBe(204);
    const out = await api('POST', '/auth/logout', { body: { refresh_token: (res.body as TokenPair).refresh_token } });
    expect(out.status).toBe(204);
    expectProblem(
      await api('POST', '/auth/refresh', { body: { refresh_token: (res.body as TokenPair).refresh_token } }),
      401,
    );
    expect((await api('POST', '/auth/logout', { body: { refresh_token: 'rtk_unknown.x' } })).status).toBe(204);
  });
});

describe('refresh grace window over HTTP', () => {
  it('two refreshes of the same token at the same moment both succeed, and both successors live on', async () => {
    const session = await signIn(uniqueEmail('race'));
    const [a, b] = await Promise.all([
      api('POST', '/auth/refresh', { body: { refresh_token: session.refresh_token } }),
      api('POST', '/auth/refresh', { body: { refresh_token: session.refresh_token } }),
    ]);
    expect([a.status, b.status]).toEqual([200, 200]);
    const [ta, tb] = [a.body as TokenPair, b.body as TokenPair];
    expect(ta.refresh_token).not.toBe(tb.refresh_token);
    for (const t of [ta, tb])
      expect((await api('POST', '/auth/refresh', { body: { refresh_token: t.refresh_token } })).status).toBe(200);
    // Both successors have been used now: the original is no longer the previous token, so it revokes the family.
    expectProblem(await api('POST', '/auth/refresh', { body: { refresh_token: session.refresh_token } }), 401);
  });
});
