import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLocalJWKSet } from 'jose';
import fc from 'fast-check';
import { authApi, type Identity } from '@kg/contracts';
import { openDatabase, type Database } from '@kg/db';
import { createLogger } from '@kg/logger';
import { verifyAccessToken } from '@kg/tokens';
import { connectService, problemFromClientError } from '@kg/trpc';
import { authMigrations, createAuthModule, createOutboxTransport, loadOrCreateKeyMaterial } from './module';
import { apiKeys } from './store/schema';

let database: Database;
let outbox: string;
let clock = new Date();
let auth: ReturnType<typeof connectService<typeof authApi>>;

beforeAll(async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'kg-auth-'));
  outbox = path.join(dir, 'outbox');
  database = await openDatabase({ dataDir: null });
  await database.migrate(authMigrations);
  const module = await createAuthModule({
    database,
    logger: createLogger('test', 'silent'),
    keys: await loadOrCreateKeyMaterial(dir),
    mail: createOutboxTransport(outbox),
    publicUrl: 'http://kg.test',
    now: () => clock,
  });
  auth = connectService('test', 'auth', authApi, { kind: 'local', router: module.router });
});
afterAll(() => database.close());

const statusOf = (p: Promise<unknown>) =>
  p.then(
    () => 200,
    (e: unknown) => problemFromClientError(e, 'auth')?.status,
  );
const lastMailTo = (email: string) => {
  const files = readdirSync(outbox)
    .filter((f) => f.endsWith('.json'))
    .sort();
  const mails = files.map(
    (f) => JSON.parse(readFileSync(path.join(outbox, f), 'utf8')) as { to: string; token: string; text: string },
  );
  return mails.filter((m) => m.to === email).at(-1)!;
};
async function signIn(email: string) {
  await auth.as(null).magicLink.request({ email });
  return auth.as(null).magicLink.verify({ token: lastMailTo(email).token });
}
async function identityOf(accessToken: string): Promise<Identity> {
  const jwks = await auth.as(null).tokens.jwks({});
  const claims = await verifyAccessToken(accessToken, createLocalJWKSet(jwks as never));
  return { tenantId: claims.tenantId, subject: claims.subject, credential: { kind: 'jwt', id: claims.tokenId } };
}

describe('magic-link sign-in', () => {
  it('mails a single-use token that signs in once', async () => {
    await auth.as(null).magicLink.request({ email: 'ada@example.com' });
    const mail = lastMailTo('ada@example.com');
    expect(mail.text).toContain('http://kg.test/auth/verify?token=');
    const pair = await auth.as(null).magicLink.verify({ token: mail.token });
    expect(pair).toMatchObject({ expires_in: 900, token_type: 'Bearer' });
    expect(await statusOf(auth.as(null).magicLink.verify({ token: mail.token }))).toBe(401);
    expect(await statusOf(auth.as(null).magicLink.verify({ token: 'garbage' }))).toBe(401);
  });

  it('expires links after 15 minutes', async () => {
    await auth.as(null).magicLink.request({ email: 'late@example.com' });
    clock = new Date(clock.getTime() + 16 * 60 * 1000);
    expect(await statusOf(auth.as(null).magicLink.verify({ token: lastMailTo('late@example.com').token }))).toBe(401);
  });

  it('creates a tenant on first sign-in and reuses it after', async () => {
    const first = await identityOf((await signIn('grace@example.com')).access_token);
    const second = await identityOf((await signIn('grace@example.com')).access_token);
    const other = await identityOf((await signIn('alan@example.com')).access_token);
    expect(first.tenantId).toMatch(/^tnt_/);
    expect(second.tenantId).toBe(first.tenantId);
    expect(other.tenantId).not.toBe(first.tenantId);
  });
});

describe('refresh tokens', () => {
  it('rotate on every use, and reuse revokes the whole family', async () => {
    const pair = await signIn('rot@example.com');
    const next = await auth.as(null).tokens.refresh({ refresh_token: pair.refresh_token });
    expect(next.refresh_token).not.toBe(pair.refresh_token);
    expect(await statusOf(auth.as(null).tokens.refresh({ refresh_token: pair.refresh_token }))).toBe(401);
    expect(await statusOf(auth.as(null).tokens.refresh({ refresh_token: next.refresh_token }))).toBe(401);
  });

  it('reject unknown and expired tokens', async () => {
    expect(await statusOf(auth.as(null).tokens.refresh({ refresh_token: 'rtk_x.y' }))).toBe(401);
    const pair = await signIn('old@example.com');
    clock = new Date(clock.getTime() + 31 * 24 * 3600 * 1000);
    expect(await statusOf(auth.as(null).tokens.refresh({ refresh_token: pair.refresh_token }))).toBe(401);
  });
});

describe('API keys', () => {
  it('are returned once, stored as an HMAC only, verified, listed and revoked', async () => {
    const me = await identityOf((await signIn('keys@example.com')).access_token);
    const created = await auth.as(me).apiKeys.create({ name: 'laptop' });
    expect(created.key.startsWith(`${created.id}.`)).toBe(true);
    const secret = created.key.slice(created.id.length + 1);
    const rows = await database.db.select().from(apiKeys);
    expect(JSON.stringify(rows)).not.toContain(secret);
    const verified = await auth.as(null).apiKeys.verify({ key: created.key });
    expect(verified).toEqual({
      tenantId: me.tenantId,
      subject: me.subject,
      credential: { kind: 'api_key', id: created.id },
    });
    const listed = await auth.as(me).apiKeys.list({});
    expect(listed.data[0]).toMatchObject({ id: created.id, name: 'laptop', revoked_at: null });
    expect(listed.data[0]).not.toHaveProperty('key');
    expect(await statusOf(auth.as(null).apiKeys.verify({ key: `${created.id}.wrong-secret-value-123` }))).toBe(401);
    await auth.as(me).apiKeys.revoke({ id: created.id });
    await auth.as(me).apiKeys.revoke({ id: created.id });
    expect(await statusOf(auth.as(null).apiKeys.verify({ key: created.key }))).toBe(401);
  });

  it('cannot be revoked by another tenant, and unknown ids are 404', async () => {
    const a = await identityOf((await signIn('a-keys@example.com')).access_token);
    const b = await identityOf((await signIn('b-keys@example.com')).access_token);
    const key = await auth.as(a).apiKeys.create({ name: 'a' });
    expect(await statusOf(auth.as(b).apiKeys.revoke({ id: key.id }))).toBe(404);
    expect(await statusOf(auth.as(b).apiKeys.revoke({ id: 'nope' }))).toBe(404);
    expect((await auth.as(null).apiKeys.verify({ key: key.key })).tenantId).toBe(a.tenantId);
  });

  it('write last_used_at at most once a minute', async () => {
    const me = await identityOf((await signIn('touch@example.com')).access_token);
    const key = await auth.as(me).apiKeys.create({ name: 't' });
    await auth.as(null).apiKeys.verify({ key: key.key });
    const first = (await auth.as(me).apiKeys.list({})).data[0]!.last_used_at;
    clock = new Date(clock.getTime() + 30_000);
    await auth.as(null).apiKeys.verify({ key: key.key });
    expect((await auth.as(me).apiKeys.list({})).data[0]!.last_used_at).toBe(first);
    clock = new Date(clock.getTime() + 31_000);
    await auth.as(null).apiKeys.verify({ key: key.key });
    expect((await auth.as(me).apiKeys.list({})).data[0]!.last_used_at).not.toBe(first);
  });

  it('reject any tampered key (property)', async () => {
    const me = await identityOf((await signIn('prop@example.com')).access_token);
    const { key } = await auth.as(me).apiKeys.create({ name: 'p' });
    await fc.assert(
      fc.asyncProperty(fc.nat({ max: key.length - 1 }), fc.string({ minLength: 1, maxLength: 1 }), async (i, c) => {
        const tampered = key.slice(0, i) + c + key.slice(i + 1);
        fc.pre(tampered !== key);
        expect(await statusOf(auth.as(null).apiKeys.verify({ key: tampered }))).toBe(401);
      }),
      { numRuns: 40 },
    );
  });
});

describe('key material', () => {
  it('is generated once and reused from the data directory', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'kg-keys-'));
    const a = await loadOrCreateKeyMaterial(dir);
    const b = await loadOrCreateKeyMaterial(dir);
    expect(b.kid).toBe(a.kid);
    expect(b.pepper).toBe(a.pepper);
    expect(b.publicJwk).toEqual(a.publicJwk);
  });
});
