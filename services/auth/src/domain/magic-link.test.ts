import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authApi } from '@kg/contracts';
import type { Logger } from '@kg/logger';
import { connectService } from '@kg/trpc';
import { createAuthModule, loadOrCreateKeyMaterial } from '../module';
import { decodeProtectedHeader } from 'jose';
import { eq } from 'drizzle-orm';
import { ACCESS_TOKEN_TTL_SECONDS } from '@kg/tokens';
import { createAuthRig, statusOf, type AuthRig } from '../testing';
import { magicLinks, tenants, users } from '../store/schema';
import { sha256 } from './secrets';

let rig: AuthRig;
beforeAll(async () => {
  rig = await createAuthRig();
});
afterAll(() => rig.close());

describe('magicLink.request', () => {
  it('answers accepted and writes one outbox file holding the token; only its sha256 is stored', async () => {
    const before = rig.mails().length;
    const answer = await rig.anon.magicLink.request({ email: 'Ada@Example.com' });
    expect(answer).toEqual({ status: 'accepted', detail: expect.stringContaining('sign-in link') });
    expect(rig.mails()).toHaveLength(before + 1);
    const mail = rig.lastMailTo('ada@example.com');
    expect(mail).toEqual({
      to: 'ada@example.com',
      subject: 'Your sign-in link',
      text: expect.stringContaining(`http://kg.test/sign-in#token=${mail.token}`),
      token: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
    const rows = await rig.db.select().from(magicLinks).where(eq(magicLinks.email, 'ada@example.com'));
    expect(rows).toHaveLength(1);
    expect(rows[0]!.tokenHash).toBe(sha256(mail.token));
    expect(JSON.stringify(rows)).not.toContain(mail.token);
    expect(rows[0]!.expiresAt.getTime() - rows[0]!.createdAt.getTime()).toBe(15 * 60 * 1000);
  });

  it('answers the same for a known and an unknown address', async () => {
    await rig.signIn('known@example.com');
    const known = await rig.anon.magicLink.request({ email: 'known@example.com' });
    const unknown = await rig.anon.magicLink.request({ email: 'never-seen@example.com' });
    expect(known).toEqual(unknown);
  });
});

describe('magicLink.request when mail fails', () => {
  it('answers 503 and logs the failure without the token', async () => {
    const tokens: string[] = [];
    const logged: unknown[] = [];
    const logger = { error: (...args: unknown[]) => logged.push(args) } as unknown as Logger;
    const failing = {
      kind: 'smtp' as const,
      send: async (m: { token: string }) => {
        tokens.push(m.token);
        throw Object.assign(new Error(`connect ECONNREFUSED; token ${m.token}`), { code: 'ECONNECTION' });
      },
    };
    const module = await createAuthModule({
      database: rig.database,
      logger,
      keys: await loadOrCreateKeyMaterial(mkdtempSync(path.join(tmpdir(), 'kg-auth-keys-'))),
      mail: failing,
    });
    const client = connectService('gateway', 'auth', authApi, { kind: 'local', router: module.router }).as(null);
    expect(await statusOf(client.magicLink.request({ email: 'down@example.com' }))).toBe(503);
    expect(tokens).toHaveLength(1);
    expect(logged).toHaveLength(1);
    expect(JSON.stringify(logged)).toContain('ECONNECTION');
    expect(JSON.stringify(logged)).not.toContain(tokens[0]);
  });
});

describe('magicLink.verify', () => {
  it('signs in once; reuse and garbage answer 401', async () => {
    await rig.anon.magicLink.request({ email: 'once@example.com' });
    const { token } = rig.lastMailTo('once@example.com');
    const pair = await rig.anon.magicLink.verify({ token });
    expect(pair).toEqual({
      access_token: expect.any(String),
      refresh_token: expect.stringMatching(/^rtk_[0-9a-z]{26}\.[A-Za-z0-9_-]{43}$/),
      expires_in: 900,
      token_type: 'Bearer',
    });
    expect(await statusOf(rig.anon.magicLink.verify({ token }))).toBe(401);
    expect(await statusOf(rig.anon.magicLink.verify({ token: 'garbage' }))).toBe(401);
  });

  it('lets exactly one of two concurrent verifications through', async () => {
    await rig.anon.magicLink.request({ email: 'race@example.com' });
    const { token } = rig.lastMailTo('race@example.com');
    const results = await Promise.all([1, 2, 3].map(() => statusOf(rig.anon.magicLink.verify({ token }))));
    expect(results.sort()).toEqual([200, 401, 401]);
  });

  it('accepts a link for 15 minutes, then answers 401', async () => {
    await rig.anon.magicLink.request({ email: 'late@example.com' });
    const early = rig.lastMailTo('late@example.com').token;
    await rig.anon.magicLink.request({ email: 'late@example.com' });
    const late = rig.lastMailTo('late@example.com').token;
    rig.advance(14 * 60 * 1000);
    expect(await statusOf(rig.anon.magicLink.verify({ token: early }))).toBe(200);
    rig.advance(60 * 1000);
    expect(await statusOf(rig.anon.magicLink.verify({ token: late }))).toBe(401);
  });

  it('creates a tenant and user on first sign-in and returns to them later', async () => {
    const tenantsBefore = (await rig.db.select().from(tenants)).length;
    const first = await rig.identity('grace@example.com');
    const second = await rig.identity('GRACE@example.com');
    const other = await rig.identity('alan@example.com');
    expect(first.tenantId).toMatch(/^tnt_/);
    expect(first.subject).toMatch(/^usr_/);
    expect(second).toMatchObject({ tenantId: first.tenantId, subject: first.subject });
    expect(other.tenantId).not.toBe(first.tenantId);
    expect((await rig.db.select().from(tenants)).length).toBe(tenantsBefore + 2);
    const [user] = await rig.db.select().from(users).where(eq(users.email, 'grace@example.com'));
    expect(user).toMatchObject({ id: first.subject, tenantId: first.tenantId });
  });

  it('creates one tenant when two links of a new address are verified at once', async () => {
    await rig.anon.magicLink.request({ email: 'twice@example.com' });
    const a = rig.lastMailTo('twice@example.com').token;
    await rig.anon.magicLink.request({ email: 'twice@example.com' });
    const b = rig.lastMailTo('twice@example.com').token;
    const pairs = await Promise.all([a, b].map((token) => rig.anon.magicLink.verify({ token })));
    const claims = await Promise.all(pairs.map((p) => rig.claimsOf(p.access_token)));
    expect(claims[0]!.tenantId).toBe(claims[1]!.tenantId);
    expect(await rig.db.select().from(users).where(eq(users.email, 'twice@example.com'))).toHaveLength(1);
  });
});

describe('access tokens', () => {
  it('verify with @kg/tokens against the published JWKS and carry tenant, subject, email, kid', async () => {
    const pair = await rig.signIn('claims@example.com');
    const [user] = await rig.db.select().from(users).where(eq(users.email, 'claims@example.com'));
    const claims = await rig.claimsOf(pair.access_token);
    expect(claims).toEqual({
      tenantId: user!.tenantId,
      subject: user!.id,
      email: 'claims@example.com', // GET /auth/me answers without a lookup
      tokenId: expect.any(String),
      expiresAt: expect.any(Number), // GET /events ends its stream then
      sessionId: expect.stringMatching(/^rtk_/), // sign-out ends the session's streams
    });
    const jwks = await rig.anon.tokens.jwks({});
    expect(jwks.keys).toHaveLength(1);
    expect(jwks.keys[0]).toMatchObject({ kty: 'OKP', crv: 'Ed25519', alg: 'EdDSA', use: 'sig' });
    expect(jwks.keys[0]).not.toHaveProperty('d');
    expect(decodeProtectedHeader(pair.access_token)).toMatchObject({ alg: 'EdDSA', kid: jwks.keys[0]!['kid'] });
    const payload = JSON.parse(Buffer.from(pair.access_token.split('.')[1]!, 'base64url').toString()) as {
      iat: number;
      exp: number;
    };
    expect(payload.exp - payload.iat).toBe(ACCESS_TOKEN_TTL_SECONDS);
  });
});
