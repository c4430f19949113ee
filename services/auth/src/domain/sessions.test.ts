import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { createAuthRig, statusOf, type AuthRig } from '../testing';
import { outbox, refreshTokens } from '../store/schema';
import { REFRESH_GRACE_MS } from './deps';

let rig: AuthRig;
// PGlite's start and migrations take seconds on a loaded machine.
beforeAll(async () => {
  rig = await createAuthRig();
}, 60_000);
afterAll(() => rig.close());

const refresh = (refresh_token: string) => rig.anon.tokens.refresh({ refresh_token });
const familyOf = async (token: string) => {
  const [row] = await rig.db
    .select()
    .from(refreshTokens)
    .where(eq(refreshTokens.id, token.split('.')[0]!));
  return rig.db.select().from(refreshTokens).where(eq(refreshTokens.familyId, row!.familyId));
};

describe('tokens.refresh', () => {
  it('rotates on every use: a new pair for the same person, in the same family', async () => {
    const pair = await rig.signIn('rot@example.com');
    const next = await refresh(pair.refresh_token);
    const third = await refresh(next.refresh_token);
    expect(new Set([pair.refresh_token, next.refresh_token, third.refresh_token]).size).toBe(3);
    expect(third).toMatchObject({ expires_in: 900, token_type: 'Bearer' });
    const [a, b] = await Promise.all([rig.claimsOf(pair.access_token), rig.claimsOf(third.access_token)]);
    expect(b).toMatchObject({ tenantId: a.tenantId, subject: a.subject });
    expect(b.tokenId).not.toBe(a.tokenId);
    const family = await familyOf(third.refresh_token);
    expect(family).toHaveLength(3);
    expect(family.filter((t) => t.usedAt)).toHaveLength(2);
  });

  it('revokes the whole family when a used token comes back after the grace window, and only that family', async () => {
    const stolen = await rig.signIn('reuse@example.com');
    const other = await rig.signIn('reuse@example.com');
    const next = await refresh(stolen.refresh_token);
    rig.advance(REFRESH_GRACE_MS + 1);
    expect(await statusOf(refresh(stolen.refresh_token))).toBe(401);
    expect(await statusOf(refresh(next.refresh_token))).toBe(401);
    expect((await familyOf(next.refresh_token)).every((t) => t.revokedAt)).toBe(true);
    expect(await statusOf(refresh(other.refresh_token))).toBe(200);
  });

  it('answers 401 for unknown, malformed and tampered tokens without touching the real one', async () => {
    const pair = await rig.signIn('tamper@example.com');
    const [id, secret] = pair.refresh_token.split('.') as [string, string];
    const flipped = `${secret.slice(0, -1)}${secret.endsWith('A') ? 'B' : 'A'}`;
    for (const token of [
      'nope',
      'rtk_x.y',
      `${id}.${flipped}`,
      `${id}.`,
      `.${secret}`,
      `rtk_01jd8x6q1bf5r3v2m9w7k4t0za.${secret}`,
    ])
      expect(await statusOf(refresh(token))).toBe(401);
    expect(await statusOf(refresh(pair.refresh_token))).toBe(200);
  });

  it('two refreshes of the same token at the same moment both succeed, and the family stays alive', async () => {
    const pair = await rig.signIn('twice@example.com');
    const [a, b] = await Promise.all([refresh(pair.refresh_token), refresh(pair.refresh_token)]);
    expect(a.refresh_token).not.toBe(b.refresh_token);
    // Both successors work on (each rotates once), and nothing of the family was revoked.
    const [a2, b2] = await Promise.all([refresh(a.refresh_token), refresh(b.refresh_token)]);
    expect((await familyOf(pair.refresh_token)).some((t) => t.revokedAt)).toBe(false);
    expect(await statusOf(refresh(a2.refresh_token))).toBe(200);
    expect(await statusOf(refresh(b2.refresh_token))).toBe(200);
  });

  it('accepts the previous token within the grace window only while its successor is unused', async () => {
    const pair = await rig.signIn('grace@example.com');
    const next = await refresh(pair.refresh_token);
    rig.advance(REFRESH_GRACE_MS - 1000);
    const late = await refresh(pair.refresh_token); // a slow second client, 9 s later
    expect(late.refresh_token).not.toBe(next.refresh_token);
    await refresh(next.refresh_token); // the family moved on: pair is no longer the previous token
    expect(await statusOf(refresh(pair.refresh_token))).toBe(401);
    expect((await familyOf(pair.refresh_token)).every((t) => t.revokedAt)).toBe(true);
  });

  it('a reuse after the grace window revokes the family, the grace successors included', async () => {
    const pair = await rig.signIn('after-grace@example.com');
    const [a, b] = await Promise.all([refresh(pair.refresh_token), refresh(pair.refresh_token)]);
    rig.advance(REFRESH_GRACE_MS + 1);
    expect(await statusOf(refresh(pair.refresh_token))).toBe(401);
    expect(await statusOf(refresh(a.refresh_token))).toBe(401);
    expect(await statusOf(refresh(b.refresh_token))).toBe(401);
  });

  it('sign-out (tokens.revoke) revokes the family; unknown tokens change nothing', async () => {
    const pair = await rig.signIn('logout@example.com');
    const next = await refresh(pair.refresh_token);
    expect(await rig.anon.tokens.revoke({ refresh_token: pair.refresh_token })).toEqual({ revoked: true });
    expect(await statusOf(refresh(next.refresh_token))).toBe(401);
    expect(await rig.anon.tokens.revoke({ refresh_token: 'rtk_nope.x' })).toEqual({ revoked: false });
  });

  it('expires refresh tokens after 30 days', async () => {
    const young = await rig.signIn('young@example.com');
    const old = await rig.signIn('old@example.com');
    rig.advance(29 * 24 * 3600 * 1000);
    expect(await statusOf(refresh(young.refresh_token))).toBe(200);
    rig.advance(24 * 3600 * 1000 + 1000);
    expect(await statusOf(refresh(old.refresh_token))).toBe(401);
  });

  it('stores only the sha256 of each secret', async () => {
    const pair = await rig.signIn('hash@example.com');
    const secret = pair.refresh_token.split('.')[1]!;
    const rows = await familyOf(pair.refresh_token);
    expect(rows[0]!.tokenHash).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(rows)).not.toContain(secret);
  });
});

describe('session.revoked (for the gateways to end the event streams of a session)', () => {
  const eventsOf = async (sessionId: string) =>
    (await rig.db.select().from(outbox)).filter(
      (r) => (r.payload as { data: { session_id?: string } }).data.session_id === sessionId,
    );

  it('access tokens carry their session (the refresh family) as `sid`, the same across refreshes', async () => {
    const pair = await rig.signIn('sid@example.com');
    const next = await refresh(pair.refresh_token);
    const [a, b] = await Promise.all([rig.claimsOf(pair.access_token), rig.claimsOf(next.access_token)]);
    const [row] = await familyOf(pair.refresh_token);
    expect(a.sessionId).toBe(row!.familyId);
    expect(b.sessionId).toBe(a.sessionId);
    expect(b.expiresAt).toBeGreaterThan(Date.now() / 1000);
    const again = await rig.signIn('sid@example.com');
    expect((await rig.claimsOf(again.access_token)).sessionId).not.toBe(a.sessionId);
  });

  it('sign-out writes it (signed_out) with the revocation, once; an unknown token writes nothing', async () => {
    const pair = await rig.signIn('signed-out@example.com');
    const claims = await rig.claimsOf(pair.access_token);
    expect(await eventsOf(claims.sessionId!)).toEqual([]);
    await rig.anon.tokens.revoke({ refresh_token: pair.refresh_token });
    const [row, ...more] = await eventsOf(claims.sessionId!);
    expect(more).toEqual([]);
    expect(row).toMatchObject({ topic: 'kg.auth.sessions.v1', key: claims.tenantId, publishedAt: null });
    expect(row!.payload).toMatchObject({
      type: 'session.revoked',
      tenant_id: claims.tenantId,
      data: { session_id: claims.sessionId, reason: 'signed_out' },
    });
    // Signing out again revokes nothing new: no second event.
    await rig.anon.tokens.revoke({ refresh_token: pair.refresh_token });
    expect(await eventsOf(claims.sessionId!)).toHaveLength(1);
  });

  it('a detected reuse writes it (reuse_detected), though the refresh answers 401', async () => {
    const pair = await rig.signIn('reused-event@example.com');
    const claims = await rig.claimsOf(pair.access_token);
    await refresh(pair.refresh_token);
    rig.advance(REFRESH_GRACE_MS + 1);
    expect(await statusOf(refresh(pair.refresh_token))).toBe(401);
    const events = await eventsOf(claims.sessionId!);
    expect(events.map((e) => (e.payload as { data: { reason: string } }).data.reason)).toEqual(['reuse_detected']);
  });
});
