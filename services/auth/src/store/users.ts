import { eq } from 'drizzle-orm';
import { newId, type DbOrTx } from '@kg/db';
import { tenants, users } from './schema';

export interface User {
  id: string;
  tenantId: string;
}

/** The user's e-mail (null: none, e.g. known only through an OpenID provider that vouched for none). */
export async function emailOf(db: DbOrTx, userId: string): Promise<string | null> {
  const [row] = await db.select({ email: users.email }).from(users).where(eq(users.id, userId));
  return row?.email ?? null;
}

const byEmail = async (db: DbOrTx, email: string): Promise<User | null> => {
  const [row] = await db.select({ id: users.id, tenantId: users.tenantId }).from(users).where(eq(users.email, email));
  return row ?? null;
};

/**
 * The user of an email, created together with its own new tenant on first sign-in.
 * Race-safe: the unique email index decides; a loser of the race (insert … on conflict
 * do nothing returns no row) drops the tenant it prepared and reads the winner's user.
 */
export async function findOrCreateUser(db: DbOrTx, email: string): Promise<User> {
  const existing = await byEmail(db, email);
  if (existing) return existing;
  const tenantId = newId('tenant');
  await db.insert(tenants).values({ id: tenantId });
  const [created] = await db
    .insert(users)
    .values({ id: newId('user'), tenantId, email })
    .onConflictDoNothing({ target: users.email })
    .returning({ id: users.id, tenantId: users.tenantId });
  if (created) return created;
  await db.delete(tenants).where(eq(tenants.id, tenantId));
  const winner = await byEmail(db, email);
  if (!winner) throw new Error('user of a conflicting email not found');
  return winner;
}
