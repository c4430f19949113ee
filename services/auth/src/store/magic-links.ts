import { and, eq, gt, isNull } from 'drizzle-orm';
import type { DbOrTx } from '@kg/db';
import { magicLinks } from './schema';

export async function insertMagicLink(db: DbOrTx, tokenHash: string, email: string, expiresAt: Date): Promise<void> {
  await db.insert(magicLinks).values({ tokenHash, email, expiresAt });
}

/** Marks the link used if it is unused and unexpired; returns its email, or null. Atomic. */
export async function consumeMagicLink(db: DbOrTx, tokenHash: string, now: Date): Promise<string | null> {
  const [row] = await db
    .update(magicLinks)
    .set({ usedAt: now })
    .where(and(eq(magicLinks.tokenHash, tokenHash), isNull(magicLinks.usedAt), gt(magicLinks.expiresAt, now)))
    .returning({ email: magicLinks.email });
  return row?.email ?? null;
}
