import { and, eq } from 'drizzle-orm';
import { newId, type DbOrTx } from '@kg/db';
import { identities, tenants, users } from './schema';

export interface SignedInUser {
  id: string;
  tenantId: string;
  email: string | null;
}

const userColumns = { id: users.id, tenantId: users.tenantId, email: users.email };

/** The user an OpenID identity (issuer, subject) belongs to. A credential lookup: no tenant yet. */
export async function userOfIdentity(db: DbOrTx, issuer: string, subject: string): Promise<SignedInUser | null> {
  const [row] = await db
    .select(userColumns)
    .from(identities)
    .innerJoin(users, eq(users.id, identities.userId))
    .where(and(eq(identities.issuer, issuer), eq(identities.subject, subject)));
  return row ?? null;
}

export async function userByEmail(db: DbOrTx, email: string): Promise<SignedInUser | null> {
  const [row] = await db.select(userColumns).from(users).where(eq(users.email, email));
  return row ?? null;
}

/**
 * Links (issuer, subject) to `user`; false when the identity is linked already (a
 * concurrent first sign-in of the same person won: the caller reads the winner).
 */
export async function linkIdentity(db: DbOrTx, issuer: string, subject: string, user: SignedInUser): Promise<boolean> {
  const rows = await db
    .insert(identities)
    .values({ issuer, subject, userId: user.id, tenantId: user.tenantId })
    .onConflictDoNothing()
    .returning({ userId: identities.userId });
  return rows.length === 1;
}

/**
 * A new user in its own new tenant. With an email, the unique index may find a concurrent
 * sign-in's user: then null (nothing is left behind).
 */
export async function createUser(db: DbOrTx, email: string | null): Promise<SignedInUser | null> {
  const tenantId = newId('tenant');
  await db.insert(tenants).values({ id: tenantId });
  const [created] = await db
    .insert(users)
    .values({ id: newId('user'), tenantId, email })
    .onConflictDoNothing({ target: users.email })
    .returning(userColumns);
  if (created) return created;
  await db.delete(tenants).where(eq(tenants.id, tenantId));
  return null;
}

/** Removes a user prepared by a sign-in that lost a race (its tenant, and by cascade the user). */
export async function dropUser(db: DbOrTx, user: SignedInUser): Promise<void> {
  await db.delete(tenants).where(eq(tenants.id, user.tenantId));
}
