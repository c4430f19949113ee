import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { AuthProviders, CookieSession, TokenPair } from '@kg/contracts';
import { api, conforms, expectProblem, remember, signIn, uniqueEmail } from './support/client';
import {
  followRedirects,
  startTestOidcProvider,
  type TestAccount,
  type TestOidcProvider,
} from '@kg/test-oidc-provider';

/**
 * OpenID Connect sign-in end to end (both modes: the e2e project runs it against `npm start`,
 * the distributed project against the seven processes) with a real provider on loopback.
 */
const base = inject('baseUrl');
const settings = inject('oidc');
const CALLBACK = `${base}/api/v1/auth/oidc/callback`;
/** A native client's loopback redirect (RFC 8252): never fetched, the test reads the redirect to it. */
const LOOPBACK = 'http://127.0.0.1:53682/callback';

let provider: TestOidcProvider;
beforeAll(async () => {
  if (!settings) throw new Error('this suite needs the loopback OpenID provider settings from global setup');
  remember(settings.clientSecret);
  provider = await startTestOidcProvider({ ...settings, redirectUris: [CALLBACK] });
});
afterAll(() => provider?.close());

const random = () => randomBytes(32).toString('base64url');
const s256 = (v: string) => createHash('sha256').update(v).digest('base64url');
const claimsOf = (jwt: string) =>
  JSON.parse(Buffer.from(jwt.split('.')[1]!, 'base64url').toString('utf8')) as { sub: string; tnt: string };

const startUrl = (q: Record<string, string>) => `${base}/api/v1/auth/oidc/start?${new URLSearchParams(q)}`;

/** A client's start: its own verifier and state; returns them with the start URL. */
function client(redirectUri = LOOPBACK) {
  const verifier = random();
  const state = random();
  return {
    verifier,
    state,
    redirectUri,
    url: startUrl({ redirect_uri: redirectUri, code_challenge: s256(verifier), code_challenge_method: 'S256', state }),
  };
}

/** Drives the browser part: start → provider (signs `account` in) → the provider's redirect to our callback. */
async function toCallback(c: ReturnType<typeof client>, account: TestAccount): Promise<URL> {
  provider.signInAs(account);
  const back = await followRedirects(c.url, (u) => u.href.startsWith(CALLBACK));
  remember(back.searchParams.get('code') ?? undefined);
  return back;
}

/** Our callback's answer: where it sends the client (302). */
async function callback(url: URL | string) {
  const res = await fetch(url, { redirect: 'manual' });
  return { status: res.status, location: res.headers.get('location'), res };
}

async function signInWith(account: TestAccount) {
  const c = client();
  const back = await callback(await toCallback(c, account));
  expect(back.status).toBe(302);
  const to = new URL(back.location!);
  remember(to.searchParams.get('code') ?? undefined);
  return { c, to };
}

const exchange = (body: Record<string, unknown>, headers: Record<string, string> = {}) =>
  api('POST', '/auth/oidc/token', { body, headers });

describe('OpenID Connect sign-in (oidc-provider on loopback)', () => {
  it('GET /auth/providers names the provider', async () => {
    const res = await api('GET', '/auth/providers');
    expect(res.status).toBe(200);
    expect(conforms(AuthProviders, res.body)).toEqual({
      magic_link: true,
      oidc: { enabled: true, issuer: settings!.issuer },
    });
  });

  it('signs a native client in: one-time code on its loopback redirect, exchanged once with its PKCE verifier', async () => {
    const sub = `native-${random().slice(0, 8)}`;
    const { c, to } = await signInWith({ sub, email: uniqueEmail('oidc'), email_verified: true });
    expect(`${to.origin}${to.pathname}`).toBe(LOOPBACK);
    expect(to.searchParams.get('state')).toBe(c.state);
    const code = to.searchParams.get('code')!;
    const res = await exchange({ code, code_verifier: c.verifier, redirect_uri: LOOPBACK });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const pair = conforms(TokenPair, res.body);
    expect((await api('GET', '/auth/me', { auth: `Bearer ${pair.access_token}` })).status).toBe(200);
    // Our code works once.
    expectProblem(await exchange({ code, code_verifier: c.verifier, redirect_uri: LOOPBACK }), 401);
    // The refresh token is ours, as after a magic link.
    expect((await api('POST', '/auth/refresh', { body: { refresh_token: pair.refresh_token } })).status).toBe(200);
  });

  it('the same (issuer, subject) signs in to the same tenant again', async () => {
    const sub = `again-${random().slice(0, 8)}`;
    const tenants: string[] = [];
    for (let i = 0; i < 2; i++) {
      const { c, to } = await signInWith({ sub });
      const res = await exchange({
        code: to.searchParams.get('code'),
        code_verifier: c.verifier,
        redirect_uri: LOOPBACK,
      });
      tenants.push(claimsOf((res.body as TokenPair).access_token).tnt);
    }
    expect(tenants[0]).toBe(tenants[1]);
  });

  it('refuses the code with another verifier or redirect_uri (401), and it is used up by the attempt', async () => {
    const { c, to } = await signInWith({ sub: `pkce-${random().slice(0, 8)}` });
    const code = to.searchParams.get('code')!;
    expectProblem(await exchange({ code, code_verifier: random(), redirect_uri: LOOPBACK }), 401);
    expectProblem(await exchange({ code, code_verifier: c.verifier, redirect_uri: LOOPBACK }), 401);
    const d = await signInWith({ sub: `uri-${random().slice(0, 8)}` });
    const other = 'http://127.0.0.1:53683/callback';
    expectProblem(
      await exchange({ code: d.to.searchParams.get('code'), code_verifier: d.c.verifier, redirect_uri: other }),
      401,
    );
    expectProblem(await exchange({ code: 'nope', code_verifier: random(), redirect_uri: LOOPBACK }), 401);
    const p = expectProblem(await exchange({ code: 'x', code_verifier: 'short', redirect_uri: LOOPBACK }), 400);
    expect(p.errors?.[0]?.path).toBe('code_verifier');
  });

  it('refuses a replayed provider redirect (state used) and a wrong state (401, no redirect)', async () => {
    const back = await toCallback(client(), { sub: `replay-${random().slice(0, 8)}` });
    expect((await callback(back)).status).toBe(302);
    const again = await fetch(back, { redirect: 'manual' });
    expect(again.status).toBe(401);
    expect(again.headers.get('location')).toBeNull();
    const forged = new URL(back);
    forged.searchParams.set('state', random());
    expect((await fetch(forged, { redirect: 'manual' })).status).toBe(401);
  });

  it('an authorization response naming another issuer is refused (error=sign_in_failed)', async () => {
    const c = client();
    const back = await toCallback(c, { sub: `iss-${random().slice(0, 8)}` });
    back.searchParams.set('iss', 'http://127.0.0.1:9/other-issuer');
    const res = await callback(back);
    const to = new URL(res.location!);
    expect(to.searchParams.get('error')).toBe('sign_in_failed');
    expect(to.searchParams.get('state')).toBe(c.state);
    expect(to.searchParams.get('code')).toBeNull();
  });

  it('a refusal at the provider comes back as error=access_denied', async () => {
    const c = client();
    const start = await fetch(c.url, { redirect: 'manual' });
    expect(start.status).toBe(302);
    const authorize = new URL(start.headers.get('location')!);
    expect(authorize.origin).toBe(settings!.issuer);
    expect(authorize.searchParams.get('code_challenge_method')).toBe('S256');
    expect(authorize.searchParams.get('nonce')).toBeTruthy();
    const res = await callback(
      `${CALLBACK}?${new URLSearchParams({ error: 'access_denied', state: authorize.searchParams.get('state')! })}`,
    );
    expect(new URL(res.location!).searchParams.get('error')).toBe('access_denied');
  });

  it('a verified address joins the magic-link person; an unverified one is refused (error=email_not_verified)', async () => {
    const email = uniqueEmail('joins');
    const byMail = claimsOf((await signIn(email)).access_token);
    const refused = await signInWith({ sub: `mallory-${random().slice(0, 8)}`, email, email_verified: false });
    expect(refused.to.searchParams.get('error')).toBe('email_not_verified');
    expect(refused.to.searchParams.get('state')).toBe(refused.c.state);
    const { c, to } = await signInWith({ sub: `owner-${random().slice(0, 8)}`, email, email_verified: true });
    const res = await exchange({
      code: to.searchParams.get('code'),
      code_verifier: c.verifier,
      redirect_uri: LOOPBACK,
    });
    expect(claimsOf((res.body as TokenPair).access_token)).toMatchObject({ tnt: byMail.tnt, sub: byMail.sub });
  });

  it('accepts only loopback redirects and the dashboard callback (400 otherwise)', async () => {
    const bad = [
      'https://evil.example/callback',
      'http://localhost:53682/callback',
      'http://127.0.0.1/callback',
      'http://10.0.0.1:8080/callback',
      'http://user:pw@127.0.0.1:53682/callback',
      // (Other paths under PUBLIC_URL: the gateway's unit test, where PUBLIC_URL is not loopback.)
      'not a url',
    ];
    for (const redirect_uri of bad) {
      const res = await api(
        'GET',
        `/auth/oidc/start?${new URLSearchParams({ redirect_uri, code_challenge: s256(random()), code_challenge_method: 'S256', state: 's' })}`,
      );
      const p = expectProblem(res, 400);
      expect(p.errors?.[0]?.path, redirect_uri).toBe('query.redirect_uri');
    }
    for (const ok of [`${base}/auth/callback`, 'http://[::1]:53682/cb']) {
      const res = await fetch(client(ok).url, { redirect: 'manual' });
      expect(res.status, ok).toBe(302);
    }
    const plain = await api(
      'GET',
      `/auth/oidc/start?${new URLSearchParams({ redirect_uri: LOOPBACK, code_challenge: 'x', code_challenge_method: 'plain', state: 's' })}`,
    );
    expect(expectProblem(plain, 400).errors?.map((e) => e.path)).toEqual(
      expect.arrayContaining(['query.code_challenge', 'query.code_challenge_method']),
    );
  });

  it('the dashboard signs in through the same flow into a cookie session', async () => {
    const c = client(`${base}/auth/callback`);
    provider.signInAs({ sub: `dash-${random().slice(0, 8)}` });
    const back = await callback(await followRedirects(c.url, (u) => u.href.startsWith(CALLBACK)));
    const to = new URL(back.location!);
    expect(`${to.origin}${to.pathname}`).toBe(`${base}/auth/callback`);
    remember(to.searchParams.get('code') ?? undefined);
    const res = await exchange(
      { code: to.searchParams.get('code'), code_verifier: c.verifier, redirect_uri: c.redirectUri },
      { 'x-kg-session': 'cookie' },
    );
    expect(res.status).toBe(200);
    expect(conforms(CookieSession, res.body)).not.toHaveProperty('refresh_token');
    expect(res.headers.getSetCookie().some((s) => s.startsWith('kg_refresh=') && /HttpOnly/i.test(s))).toBe(true);
  });
});
