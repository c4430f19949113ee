import { and, eq, isNull } from 'drizzle-orm';
import type { DbOrTx } from '@kg/db';
import { refreshTokens } from './schema';

export interface RefreshRow {
  id: string;
  familyId: string;
  userId: string;
  tenantId: string;
  tokenHash: string;
  expiresAt: Date;
}

export async function insertRefreshToken(db: DbOrTx, row: RefreshRow): Promise<void> {
  await db.insert(refreshTokens).values(row);
}

export async function findRefreshToken(db: DbOrTx, tokenHash: string) {
  const [row] = await db.select().from(refreshTokens).where(eq(refreshTokens.tokenHash, tokenHash)).for('update');
  return row ?? null;
}

/** Marks a token used; false when another request used it first (concurrent reuse). */
export async function markUsed(db: DbOrTx, id: string, now: Date): Promise<boolean> {
  const rows = await db
    .update(refreshTokens)
    .set({ usedAt: now })
    .where(and(eq(refreshTokens.id, id), isNull(refreshTokens.usedAt)))
    .returning({ id: refreshTokens.id });
  return rows.length === 1;
}

export async function revokeFamily(db: DbOrTx, familyId: string, now: Date): Promise<void> {
  await db
    .update(refreshTokens)
    .set({ revokedAt: now })
    .where(and(eq(refreshTokens.familyId, familyId), isNull(refreshTokens.revokedAt)));
}
