import { and, eq, gt, isNull, lt } from 'drizzle-orm';
import type { DbOrTx } from '@kg/db';
import { magicLinks } from './schema';

export async function insertMagicLink(
  db: DbOrTx,
  link: { tokenHash: string; email: string; expiresAt: Date; createdAt: Date },
): Promise<void> {
  await db.insert(magicLinks).values(link);
}

/**
 * Marks the link used if it is unused and unexpired, in one statement
 * (UPDATE … WHERE used_at IS NULL AND expires_at > now RETURNING): of two concurrent
 * verifications exactly one gets the email. Null for unknown, used or expired links.
 */
export async function consumeMagicLink(db: DbOrTx, tokenHash: string, now: Date): Promise<string | null> {
  const [row] = await db
    .update(magicLinks)
    .set({ usedAt: now })
    .where(and(eq(magicLinks.tokenHash, tokenHash), isNull(magicLinks.usedAt), gt(magicLinks.expiresAt, now)))
    .returning({ email: magicLinks.email });
  return row?.email ?? null;
}

/**
 * Deletes links that expired before `before`, used or not: an expired link is refused
 * whether or not its row exists, so this changes no answer. Returns how many went.
 */
export async function pruneMagicLinks(db: DbOrTx, before: Date): Promise<number> {
  const rows = await db
    .delete(magicLinks)
    .where(lt(magicLinks.expiresAt, before))
    .returning({ tokenHash: magicLinks.tokenHash });
  return rows.length;
}
