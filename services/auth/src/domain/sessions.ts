import { TOPICS, isId, unauthorized, type SessionEvent, type TokenPair } from '@kg/contracts';
import { enqueueEvent, newEventId } from '@kg/bus';
import { newId, type DbOrTx } from '@kg/db';
import { ACCESS_TOKEN_TTL_SECONDS } from '@kg/tokens';
import {
  findRefreshTokenForUpdate,
  hasUsedSuccessor,
  insertRefreshToken,
  markRefreshTokenUsed,
  revokeRefreshFamily,
} from '../store/refresh-tokens';
import { outbox } from '../store/schema';
import { emailOf, type User } from '../store/users';
import { signAccessToken } from './access-token';
import { REFRESH_GRACE_MS, REFRESH_TOKEN_TTL_MS, type Deps } from './deps';
import { SECRET_PATTERN, randomSecret, sha256, splitCredential } from './secrets';

/**
 * Issues an access token and a refresh token (`rtk_….<secret>`, stored as sha256 only)
 * of `familyId`; a sign-in starts a new family, a refresh continues its family.
 */
export async function issueTokenPair(
  deps: Deps,
  tx: DbOrTx,
  user: User,
  familyId = newId('refreshToken'),
  parentId: string | null = null,
): Promise<TokenPair> {
  const now = deps.now();
  const ttl = deps.accessTokenTtlSeconds ?? ACCESS_TOKEN_TTL_SECONDS;
  const id = newId('refreshToken');
  const secret = randomSecret();
  await insertRefreshToken(tx, {
    id,
    familyId,
    userId: user.id,
    tenantId: user.tenantId,
    tokenHash: sha256(secret),
    parentId,
    expiresAt: new Date(now.getTime() + REFRESH_TOKEN_TTL_MS),
    createdAt: now,
  });
  return {
    // The e-mail rides in the token, so GET /auth/me answers without a lookup.
    access_token: await signAccessToken(deps.keys, { ...user, email: await emailOf(tx, user.id) }, now, ttl, familyId),
    refresh_token: `${id}.${secret}`,
    expires_in: ttl,
    token_type: 'Bearer',
  };
}

/**
 * A used token is still accepted (REFRESH_GRACE_MS) when it was rotated moments ago and is
 * the immediately previous token of its family: no token rotated from it has been used.
 */
async function inGraceWindow(
  tx: DbOrTx,
  row: { id: string; tenantId: string; usedAt: Date | null },
  now: Date,
): Promise<boolean> {
  if (!row.usedAt || now.getTime() - row.usedAt.getTime() > REFRESH_GRACE_MS) return false;
  return !(await hasUsedSuccessor(tx, row.tenantId, row.id));
}

/**
 * Revokes a session (refresh-token family) and, when it was still live, writes its
 * `session.revoked` event in the same transaction (outbox): every gateway then ends the
 * event streams opened with that session's access tokens.
 */
async function revokeSession(
  deps: Deps,
  tx: DbOrTx,
  row: { tenantId: string; familyId: string },
  reason: SessionEvent['data']['reason'],
): Promise<void> {
  const now = deps.now();
  if ((await revokeRefreshFamily(tx, row.tenantId, row.familyId, now)) === 0) return;
  const event: SessionEvent = {
    id: newEventId(),
    type: 'session.revoked',
    tenant_id: row.tenantId,
    occurred_at: now.toISOString(),
    data: { session_id: row.familyId, reason },
  };
  await enqueueEvent(tx, outbox, TOPICS.sessions, event);
}

type Outcome = { kind: 'rotated'; pair: TokenPair } | { kind: 'reused'; familyId: string } | { kind: 'invalid' };

/**
 * Rotates a refresh token: the presented one is marked used and the next one of its
 * family is issued. Presenting a token that was used already (a stolen copy, or the
 * legitimate client after a thief) revokes the whole family and answers 401; the
 * revocation commits even though the call fails. Unknown, expired or revoked: 401.
 * Exception: the grace window (REFRESH_GRACE_MS) for the immediately previous token.
 */
export async function rotateRefreshToken(deps: Deps, presented: string): Promise<TokenPair> {
  const parts = splitCredential(presented);
  if (!parts || !isId('refreshToken', parts.id) || !SECRET_PATTERN.test(parts.secret))
    throw unauthorized('Invalid or expired refresh token');
  const outcome = await deps.db.transaction(async (tx): Promise<Outcome> => {
    const row = await findRefreshTokenForUpdate(tx, sha256(parts.secret));
    const now = deps.now();
    if (!row || row.id !== parts.id || row.revokedAt || row.expiresAt <= now) return { kind: 'invalid' };
    const user = { id: row.userId, tenantId: row.tenantId };
    if (row.usedAt && (await inGraceWindow(tx, row, now)))
      return { kind: 'rotated', pair: await issueTokenPair(deps, tx, user, row.familyId, row.id) };
    if (row.usedAt || !(await markRefreshTokenUsed(tx, row.tenantId, row.id, now))) {
      await revokeSession(deps, tx, row, 'reuse_detected');
      return { kind: 'reused', familyId: row.familyId };
    }
    const pair = await issueTokenPair(deps, tx, user, row.familyId, row.id);
    return { kind: 'rotated', pair };
  });
  if (outcome.kind === 'rotated') return outcome.pair;
  if (outcome.kind === 'reused') {
    deps.afterCommit?.();
    deps.logger.warn({ familyId: outcome.familyId }, 'refresh token reuse detected; token family revoked');
    throw unauthorized('Refresh token already used; the session has been revoked');
  }
  throw unauthorized('Invalid or expired refresh token');
}

/**
 * Sign-out: revokes the whole family of a refresh token (used or not, within its lifetime),
 * with its `session.revoked` event (`signed_out`) when the family was still live.
 * Idempotent; an unknown or malformed token changes nothing (false).
 */
export async function revokeRefreshSession(deps: Deps, presented: string): Promise<boolean> {
  const parts = splitCredential(presented);
  if (!parts || !isId('refreshToken', parts.id) || !SECRET_PATTERN.test(parts.secret)) return false;
  const revoked = await deps.db.transaction(async (tx) => {
    const row = await findRefreshTokenForUpdate(tx, sha256(parts.secret));
    if (!row || row.id !== parts.id) return false;
    await revokeSession(deps, tx, row, 'signed_out');
    return true;
  });
  if (revoked) deps.afterCommit?.();
  return revoked;
}
