import { and, eq, isNotNull, isNull, lt } from 'drizzle-orm';
import type { DbOrTx } from '@kg/db';
import { refreshTokens } from './schema';

export type RefreshTokenRow = typeof refreshTokens.$inferSelect;

export async function insertRefreshToken(
  db: DbOrTx,
  row: Pick<RefreshTokenRow, 'id' | 'familyId' | 'userId' | 'tenantId' | 'tokenHash' | 'expiresAt' | 'createdAt'> &
    Partial<Pick<RefreshTokenRow, 'parentId'>>,
): Promise<void> {
  await db.insert(refreshTokens).values(row);
}

/**
 * The token whose secret hashes to `tokenHash`, locked for the rest of the transaction.
 * A credential lookup: the tenant is not known until the token is found.
 */
export async function findRefreshTokenForUpdate(db: DbOrTx, tokenHash: string): Promise<RefreshTokenRow | null> {
  const [row] = await db.select().from(refreshTokens).where(eq(refreshTokens.tokenHash, tokenHash)).for('update');
  return row ?? null;
}

/** Marks a token used; false when it was used already (a concurrent request won). */
export async function markRefreshTokenUsed(db: DbOrTx, tenantId: string, id: string, now: Date): Promise<boolean> {
  const rows = await db
    .update(refreshTokens)
    .set({ usedAt: now })
    .where(and(eq(refreshTokens.tenantId, tenantId), eq(refreshTokens.id, id), isNull(refreshTokens.usedAt)))
    .returning({ id: refreshTokens.id });
  return rows.length === 1;
}

/** True when a token rotated from `parentId` has itself been used (the parent is no longer the previous token). */
export async function hasUsedSuccessor(db: DbOrTx, tenantId: string, parentId: string): Promise<boolean> {
  const rows = await db
    .select({ id: refreshTokens.id })
    .from(refreshTokens)
    .where(
      and(eq(refreshTokens.tenantId, tenantId), eq(refreshTokens.parentId, parentId), isNotNull(refreshTokens.usedAt)),
    )
    .limit(1);
  return rows.length > 0;
}

/** Revokes every token of a family (reuse detected). Returns how many were still live. */
export async function revokeRefreshFamily(db: DbOrTx, tenantId: string, familyId: string, now: Date): Promise<number> {
  const rows = await db
    .update(refreshTokens)
    .set({ revokedAt: now })
    .where(
      and(eq(refreshTokens.tenantId, tenantId), eq(refreshTokens.familyId, familyId), isNull(refreshTokens.revokedAt)),
    )
    .returning({ id: refreshTokens.id });
  return rows.length;
}

/**
 * Deletes refresh tokens that expired before `before`. An expired token is refused
 * whether or not its row exists (no reuse detection applies to it), so this changes no
 * answer; live tokens of a revoked family stay until they expire.
 */
export async function pruneRefreshTokens(db: DbOrTx, before: Date): Promise<number> {
  const rows = await db
    .delete(refreshTokens)
    .where(lt(refreshTokens.expiresAt, before))
    .returning({ id: refreshTokens.id });
  return rows.length;
}
