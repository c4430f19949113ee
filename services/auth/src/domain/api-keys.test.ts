import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import fc from 'fast-check';
import type { Identity } from '@kg/contracts';
import { createAuthRig, statusOf, type AuthRig } from '../testing';
import { apiKeys, outbox } from '../store/schema';
import { sha256 } from './secrets';

let rig: AuthRig;
let me: Identity;
// PGlite's start and migrations take seconds on a loaded machine (as in sessions.test.ts).
beforeAll(async () => {
  rig = await createAuthRig();
  me = await rig.identity('keys@example.com');
}, 60_000);
afterAll(() => rig.close());

const verify = (key: string) => rig.anon.apiKeys.verify({ key });
const rowOf = async (id: string) => (await rig.db.select().from(apiKeys).where(eq(apiKeys.id, id)))[0]!;

describe('apiKeys.create', () => {
  it('returns the record and the raw key once; the store holds only an HMAC of the secret', async () => {
    const created = await rig.auth.as(me).apiKeys.create({ name: '  laptop ' });
    const [id, secret] = created.key.split('.') as [string, string];
    expect(created).toEqual({
      id,
      name: 'laptop',
      prefix: `${id}.${secret.slice(0, 6)}`,
      created_at: expect.any(String),
      last_used_at: null,
      revoked_at: null,
      key: `${id}.${secret}`,
    });
    expect(id).toMatch(/^key_[0-9a-z]{26}$/);
    expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const row = await rowOf(id);
    expect(row).toMatchObject({ tenantId: me.tenantId, userId: me.subject });
    expect(row.secretHash).toMatch(/^[0-9a-f]{64}$/);
    expect(row.secretHash).not.toBe(sha256(secret));
    expect(JSON.stringify(row)).not.toContain(secret);
    expect((await rig.auth.as(me).apiKeys.list({})).data.find((k) => k.id === id)).not.toHaveProperty('key');
  });
});

describe('apiKeys.verify', () => {
  it('answers the identity of a valid key, 401 for a wrong secret or malformed key', async () => {
    const { id, key } = await rig.auth.as(me).apiKeys.create({ name: 'ci' });
    expect(await verify(key)).toEqual({
      tenantId: me.tenantId,
      subject: me.subject,
      credential: { kind: 'api_key', id },
      email: 'keys@example.com',
    });
    const wrong = `${id}.${'x'.repeat(43)}`;
    for (const bad of [wrong, id, `${id}.`, `.${key}`, 'key_nope.secret', `${key}x`, `${key.slice(0, -1)}`])
      expect(await statusOf(verify(bad))).toBe(401);
  });

  it('rejects any tampered key, and never fails otherwise than 401 (property)', async () => {
    const { key } = await rig.auth.as(me).apiKeys.create({ name: 'prop' });
    const tampered = fc
      .tuple(fc.nat({ max: key.length - 1 }), fc.string({ minLength: 1, maxLength: 1 }))
      .map(([i, c]) => key.slice(0, i) + c + key.slice(i + 1))
      .filter((k) => k !== key);
    const garbage = fc.oneof(
      fc.string({ maxLength: 200 }),
      fc.string({ maxLength: 60 }).map((s) => `${key}${s}`),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          tampered,
          garbage.filter((k) => k !== key),
        ),
        async (candidate) => {
          expect(await statusOf(verify(candidate))).toBe(401);
        },
      ),
      { numRuns: 60 },
    );
    expect(await statusOf(verify(key))).toBe(200);
  });
});

describe('apiKeys.list and revoke', () => {
  it('lists the tenant keys newest first, revoked ones included, and revokes idempotently', async () => {
    const owner = await rig.identity('lister@example.com');
    const client = rig.auth.as(owner);
    const first = await client.apiKeys.create({ name: 'first' });
    rig.advance(1000);
    const second = await client.apiKeys.create({ name: 'second' });
    expect(await client.apiKeys.revoke({ id: first.id })).toEqual({ revoked: true });
    const revokedAt = (await rowOf(first.id)).revokedAt;
    rig.advance(1000);
    expect(await client.apiKeys.revoke({ id: first.id })).toEqual({ revoked: true });
    expect((await rowOf(first.id)).revokedAt).toEqual(revokedAt);
    const { data } = await client.apiKeys.list({});
    expect(data.map((k) => [k.name, k.revoked_at === null])).toEqual([
      ['second', true],
      ['first', false],
    ]);
    expect(data[1]!.revoked_at).toBe(revokedAt!.toISOString());
    expect(await statusOf(verify(first.key))).toBe(401);
    expect(await statusOf(verify(second.key))).toBe(200);
  });

  it('takes effect on the very next verification', async () => {
    const { id, key } = await rig.auth.as(me).apiKeys.create({ name: 'short-lived' });
    expect(await statusOf(verify(key))).toBe(200);
    await rig.auth.as(me).apiKeys.revoke({ id });
    expect(await statusOf(verify(key))).toBe(401);
  });

  it("keeps tenants apart: another tenant's key is invisible and answers 404 on revoke", async () => {
    const other = await rig.identity('intruder@example.com');
    const mine = await rig.auth.as(me).apiKeys.create({ name: 'mine' });
    expect((await rig.auth.as(other).apiKeys.list({})).data).toEqual([]);
    expect(await statusOf(rig.auth.as(other).apiKeys.revoke({ id: mine.id }))).toBe(404);
    expect(await statusOf(rig.auth.as(me).apiKeys.revoke({ id: 'key_01jd8x6q1bf5r3v2m9w7k4t0za' }))).toBe(404);
    expect(await statusOf(rig.auth.as(me).apiKeys.revoke({ id: 'garbage' }))).toBe(404);
    expect((await verify(mine.key)).tenantId).toBe(me.tenantId);
  });

  it('are created and revoked only by a signed-in person, never with an API key (403); a key may list', async () => {
    const person = await rig.identity('person@example.com');
    const made = await rig.auth.as(person).apiKeys.create({ name: 'script' });
    const viaKey = await verify(made.key);
    expect(viaKey.credential.kind).toBe('api_key');
    expect(await statusOf(rig.auth.as(viaKey).apiKeys.create({ name: 'child' }))).toBe(403);
    expect(await statusOf(rig.auth.as(viaKey).apiKeys.revoke({ id: made.id }))).toBe(403);
    expect((await rig.auth.as(viaKey).apiKeys.list({})).data.map((k) => k.name)).toEqual(['script']);
    expect((await rowOf(made.id)).revokedAt).toBeNull();
  });

  it('needs an identity', async () => {
    expect(await statusOf(rig.anon.apiKeys.list({}))).toBe(401);
    expect(await statusOf(rig.anon.apiKeys.create({ name: 'x' }))).toBe(401);
  });
});

describe('last_used_at', () => {
  it('is written on first use, then at most once per 60 s', async () => {
    const { id, key } = await rig.auth.as(me).apiKeys.create({ name: 'touch' });
    await verify(key);
    const first = (await rowOf(id)).lastUsedAt;
    expect(first).not.toBeNull();
    rig.advance(30_000);
    await verify(key);
    rig.advance(29_000);
    await verify(key);
    expect((await rowOf(id)).lastUsedAt).toEqual(first);
    rig.advance(2_000);
    await verify(key);
    expect((await rowOf(id)).lastUsedAt!.getTime()).toBe(first!.getTime() + 61_000);
  });
});

describe('api_key.revoked', () => {
  it('is written to the outbox with the revocation (for the gateways to drop the key from their caches)', async () => {
    const { id } = await rig.auth.as(me).apiKeys.create({ name: 'evented' });
    const events = async () =>
      (await rig.db.select().from(outbox)).filter(
        (r) => (r.payload as { data: { api_key_id: string } }).data.api_key_id === id,
      );
    expect(await events()).toEqual([]);
    await rig.auth.as(me).apiKeys.revoke({ id });
    const [row] = await events();
    expect(row).toMatchObject({ topic: 'kg.auth.api-keys.v1', key: me.tenantId, publishedAt: null });
    expect(row!.payload).toMatchObject({ type: 'api_key.revoked', tenant_id: me.tenantId, data: { api_key_id: id } });
    // Another tenant's or an unknown key writes nothing.
    const other = await rig.identity('other-evented@example.com');
    await expect(rig.auth.as(other).apiKeys.revoke({ id })).rejects.toThrow();
    expect(await events()).toHaveLength(1);
  });
});
