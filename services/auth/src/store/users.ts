import { eq } from 'drizzle-orm';
import { newId, type DbOrTx } from '@kg/db';
import { tenants, users } from './schema';

export interface User {
  id: string;
  tenantId: string;
}

/** The user of an email, created with its own new tenant on first sign-in (race-safe). */
export async function findOrCreateUser(db: DbOrTx, email: string): Promise<User> {
  const [existing] = await db
    .select({ id: users.id, tenantId: users.tenantId })
    .from(users)
    .where(eq(users.email, email));
  if (existing) return existing;
  const tenantId = newId('tenant');
  await db.insert(tenants).values({ id: tenantId });
  await db
    .insert(users)
    .values({ id: newId('user'), tenantId, email })
    .onConflictDoNothing();
  const [user] = await db.select({ id: users.id, tenantId: users.tenantId }).from(users).where(eq(users.email, email));
  if (!user) throw new Error('user vanished after insert');
  return user;
}
