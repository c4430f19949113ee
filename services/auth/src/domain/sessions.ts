import { unauthorized, type TokenPair } from '@kg/contracts';
import { newId, type DbOrTx } from '@kg/db';
import { ACCESS_TOKEN_TTL_SECONDS } from '@kg/tokens';
import { findRefreshToken, insertRefreshToken, markUsed, revokeFamily } from '../store/refresh-tokens';
import type { User } from '../store/users';
import { signAccessToken } from './access-token';
import { REFRESH_TTL_MS, type AuthContext } from './deps';
import { randomSecret, sha256 } from './secrets';

/** Issues an access token and a refresh token of `familyId` (a new family on sign-in). */
export async function issueTokenPair(
  ctx: AuthContext,
  tx: DbOrTx,
  user: User,
  familyId = newId('refreshToken'),
): Promise<TokenPair> {
  const now = ctx.now();
  const id = newId('refreshToken');
  const secret = randomSecret();
  await insertRefreshToken(tx, {
    id,
    familyId,
    userId: user.id,
    tenantId: user.tenantId,
    tokenHash: sha256(secret),
    expiresAt: new Date(now.getTime() + REFRESH_TTL_MS),
  });
  return {
    access_token: await signAccessToken(ctx.keys, user, now),
    refresh_token: `${id}.${secret}`,
    expires_in: ACCESS_TOKEN_TTL_SECONDS,
    token_type: 'Bearer',
  };
}

/**
 * Rotates a refresh token: the presented one becomes used and a new one of the same
 * family is issued. Presenting a used token again revokes the whole family.
 */
export async function refresh(ctx: AuthContext, presented: string): Promise<TokenPair> {
  const secret = presented.split('.')[1] ?? '';
  const outcome = await ctx.db.transaction(async (tx) => {
    const row = await findRefreshToken(tx, sha256(secret));
    const now = ctx.now();
    if (!row || row.revokedAt || row.expiresAt <= now || `${row.id}.${secret}` !== presented) return null;
    if (row.usedAt || !(await markUsed(tx, row.id, now))) {
      await revokeFamily(tx, row.familyId, now);
      return 'reused' as const;
    }
    return issueTokenPair(ctx, tx, { id: row.userId, tenantId: row.tenantId }, row.familyId);
  });
  if (outcome === 'reused') {
    ctx.logger.warn('refresh token reuse detected; token family revoked');
    throw unauthorized('Refresh token already used; the session has been revoked');
  }
  if (!outcome) throw unauthorized('Invalid or expired refresh token');
  return outcome;
}
