import { createHash, randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import type { CustomFetch } from 'openid-client';
import { createAuthRig, statusOf, type AuthRig } from '../testing';
import { identities, users } from '../store/schema';
import {
  followRedirects,
  startTestOidcProvider,
  type TestAccount,
  type TestOidcProvider,
} from '@kg/test-oidc-provider';
import { oidcCallbackUrl } from './sign-in';

const CALLBACK = oidcCallbackUrl('http://kg.test/');
const CLIENT = { clientId: 'kg-unit', clientSecret: randomBytes(24).toString('base64url') };
const random = () => randomBytes(32).toString('base64url');
const s256 = (v: string) => createHash('sha256').update(v).digest('base64url');

const freePort = () =>
  new Promise<number>((resolve) => {
    const srv = createServer().listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });

let provider: TestOidcProvider;
let other: TestOidcProvider;
let rig: AuthRig;
/** When set, the token endpoint's answer is altered on its way to openid-client. */
let alterTokens: ((body: Record<string, unknown>) => Promise<Record<string, unknown>>) | null = null;

const spyFetch: CustomFetch = async (url, init) => {
  const res = await fetch(url, init as RequestInit);
  if (!alterTokens || !url.endsWith('/token')) return res;
  const body = (await res.json()) as Record<string, unknown>;
  return new Response(JSON.stringify(await alterTokens(body)), { status: res.status, headers: res.headers });
};

// PGlite's start and migrations take seconds on a loaded machine.
beforeAll(async () => {
  const ports = [await freePort(), await freePort()];
  provider = await startTestOidcProvider({ port: ports[0]!, ...CLIENT, redirectUris: [CALLBACK] });
  other = await startTestOidcProvider({ port: ports[1]!, ...CLIENT, redirectUris: [CALLBACK] });
  rig = await createAuthRig({
    oidc: { issuer: provider.issuer, clientId: CLIENT.clientId, clientSecret: CLIENT.clientSecret },
    oidcFetch: spyFetch,
  });
}, 60_000);
afterAll(async () => {
  await rig?.close();
  await provider?.close();
  await other?.close();
});

/** One pending login as the gateway keeps it, driven through the provider up to its redirect to our callback. */
async function login(account: TestAccount) {
  const pending = { state: random(), nonce: random(), verifier: random() };
  const { authorization_url } = await rig.anon.oidc.authorize({
    state: pending.state,
    nonce: pending.nonce,
    code_challenge: s256(pending.verifier),
  });
  provider.signInAs(account);
  const back = await followRedirects(authorization_url, (u) => u.href.startsWith(CALLBACK));
  return { ...pending, callbackQuery: back.search.slice(1) };
}

const complete = (l: { callbackQuery: string; state: string; nonce: string; verifier: string }) =>
  rig.anon.oidc.complete({
    callback_query: l.callbackQuery,
    state: l.state,
    nonce: l.nonce,
    code_verifier: l.verifier,
  });

const identityRows = (sub: string) => rig.db.select().from(identities).where(eq(identities.subject, sub));

describe('OpenID sign-in against a real provider (oidc-provider)', () => {
  it('reports the configured provider', async () => {
    expect(await rig.anon.oidc.status({})).toEqual({ enabled: true, issuer: provider.issuer });
  });

  it('signs a new person in with our own token pair; the same (issuer, subject) signs in to the same tenant', async () => {
    const first = await complete(await login({ sub: 'alice', email: 'alice@example.com', email_verified: true }));
    expect(first).toMatchObject({ expires_in: 900, token_type: 'Bearer' });
    expect(first.refresh_token).toMatch(/^rtk_/);
    const again = await complete(await login({ sub: 'alice', email: 'alice-new@example.com', email_verified: true }));
    const [a, b] = await Promise.all([rig.claimsOf(first.access_token), rig.claimsOf(again.access_token)]);
    expect(b).toMatchObject({ tenantId: a.tenantId, subject: a.subject });
    expect(await identityRows('alice')).toHaveLength(1);
    // Our refresh token works like one from a magic link.
    expect(await statusOf(rig.anon.tokens.refresh({ refresh_token: again.refresh_token }))).toBe(200);
  });

  it('a verified address joins the person known from magic-link sign-in', async () => {
    const byMail = await rig.claimsOf((await rig.signIn('bob@example.com')).access_token);
    const pair = await complete(await login({ sub: 'bob-at-idp', email: 'Bob@Example.com', email_verified: true }));
    expect(await rig.claimsOf(pair.access_token)).toMatchObject({ tenantId: byMail.tenantId, subject: byMail.subject });
  });

  it('an unverified address never joins an existing person (403) and links nothing', async () => {
    await rig.signIn('carol@example.com');
    const l = await login({ sub: 'mallory', email: 'carol@example.com', email_verified: false });
    expect(await statusOf(complete(l))).toBe(403);
    expect(await identityRows('mallory')).toHaveLength(0);
  });

  it('an unverified address that nobody uses starts a person without an address', async () => {
    const pair = await complete(await login({ sub: 'dave', email: 'dave@example.com', email_verified: false }));
    const claims = await rig.claimsOf(pair.access_token);
    const [row] = await rig.db.select().from(users).where(eq(users.id, claims.subject));
    expect(row!.email).toBeNull();
    // A later magic link for that address is another person.
    const byMail = await rig.claimsOf((await rig.signIn('dave@example.com')).access_token);
    expect(byMail.tenantId).not.toBe(claims.tenantId);
  });

  it('refuses a wrong state (401)', async () => {
    const l = await login({ sub: 'erin' });
    expect(await statusOf(complete({ ...l, state: random() }))).toBe(401);
  });

  it('refuses a bad nonce (401)', async () => {
    const l = await login({ sub: 'frank' });
    expect(await statusOf(complete({ ...l, nonce: random() }))).toBe(401);
  });

  it("refuses a wrong PKCE verifier, and a replayed provider code (the provider's own one-use rule)", async () => {
    const l = await login({ sub: 'grace' });
    expect(await statusOf(complete({ ...l, verifier: random() }))).toBe(401);
    const m = await login({ sub: 'grace' });
    expect(await statusOf(complete(m))).toBe(200);
    expect(await statusOf(complete(m))).toBe(401);
  });

  it('refuses an ID token from another issuer (same client, key and nonce)', async () => {
    const l = await login({ sub: 'heidi' });
    // A real ID token for the same nonce from the other provider.
    const verifier = random();
    const url = new URL(`${other.issuer}/auth`);
    for (const [k, v] of Object.entries({
      client_id: CLIENT.clientId,
      response_type: 'code',
      scope: 'openid email',
      redirect_uri: CALLBACK,
      state: random(),
      nonce: l.nonce,
      code_challenge: s256(verifier),
      code_challenge_method: 'S256',
    }))
      url.searchParams.set(k, v);
    other.signInAs({ sub: 'heidi' });
    const back = await followRedirects(url.href, (u) => u.href.startsWith(CALLBACK));
    const tokenRes = await fetch(`${other.issuer}/token`, {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from(`${CLIENT.clientId}:${CLIENT.clientSecret}`).toString('base64')}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code: back.searchParams.get('code')!,
        redirect_uri: CALLBACK,
        code_verifier: verifier,
      }),
    });
    const foreign = (await tokenRes.json()) as { id_token: string };
    expect(foreign.id_token).toBeTruthy();
    alterTokens = async (body) => ({ ...body, id_token: foreign.id_token });
    try {
      expect(await statusOf(complete(l))).toBe(401);
    } finally {
      alterTokens = null;
    }
    expect(await identityRows('heidi')).toHaveLength(0);
  });

  it('refuses an authorization response that names another issuer (RFC 9207 iss)', async () => {
    const l = await login({ sub: 'ivan' });
    const q = new URLSearchParams(l.callbackQuery);
    expect(q.get('iss')).toBe(provider.issuer);
    q.set('iss', other.issuer);
    expect(await statusOf(complete({ ...l, callbackQuery: q.toString() }))).toBe(401);
  });
});

describe('OpenID sign-in not configured', () => {
  it('answers 404 and reports it disabled', async () => {
    const plain = await createAuthRig();
    try {
      expect(await plain.anon.oidc.status({})).toEqual({ enabled: false, issuer: null });
      expect(
        await statusOf(plain.anon.oidc.authorize({ state: random(), nonce: random(), code_challenge: s256(random()) })),
      ).toBe(404);
    } finally {
      await plain.close();
    }
  }, 60_000);
});
