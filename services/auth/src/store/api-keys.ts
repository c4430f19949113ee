import { and, desc, eq, isNull, lt, or } from 'drizzle-orm';
import type { DbOrTx } from '@kg/db';
import { apiKeys, users } from './schema';

export type ApiKeyRow = typeof apiKeys.$inferSelect;

export async function insertApiKey(db: DbOrTx, row: typeof apiKeys.$inferInsert): Promise<ApiKeyRow> {
  const [created] = await db.insert(apiKeys).values(row).returning();
  if (!created) throw new Error('api key insert returned no row');
  return created;
}

/** A tenant's keys, newest first, revoked ones included. */
export function listApiKeys(db: DbOrTx, tenantId: string): Promise<ApiKeyRow[]> {
  return db
    .select()
    .from(apiKeys)
    .where(eq(apiKeys.tenantId, tenantId))
    .orderBy(desc(apiKeys.createdAt), desc(apiKeys.id));
}

/**
 * The key with this id and its user's e-mail, for verifying a presented key: a credential
 * lookup, the tenant is not known yet.
 */
export async function findApiKeyForVerification(
  db: DbOrTx,
  id: string,
): Promise<(ApiKeyRow & { email: string | null }) | null> {
  const [row] = await db
    .select({ key: apiKeys, email: users.email })
    .from(apiKeys)
    .leftJoin(users, eq(users.id, apiKeys.userId))
    .where(eq(apiKeys.id, id));
  return row ? { ...row.key, email: row.email } : null;
}

/** Revokes a tenant's key; revoking twice keeps the first time. Null when the tenant has no such key. */
export async function revokeApiKey(db: DbOrTx, tenantId: string, id: string, now: Date): Promise<ApiKeyRow | null> {
  const [revoked] = await db
    .update(apiKeys)
    .set({ revokedAt: now })
    .where(and(eq(apiKeys.tenantId, tenantId), eq(apiKeys.id, id), isNull(apiKeys.revokedAt)))
    .returning();
  if (revoked) return revoked;
  const [existing] = await db
    .select()
    .from(apiKeys)
    .where(and(eq(apiKeys.tenantId, tenantId), eq(apiKeys.id, id)));
  return existing ?? null;
}

/**
 * Records use of a key, but only when the stored value is older than `staleBefore`:
 * the conditional UPDATE keeps several replicas from all writing within one interval.
 */
export async function touchApiKey(
  db: DbOrTx,
  tenantId: string,
  id: string,
  now: Date,
  staleBefore: Date,
): Promise<void> {
  await db
    .update(apiKeys)
    .set({ lastUsedAt: now })
    .where(
      and(
        eq(apiKeys.tenantId, tenantId),
        eq(apiKeys.id, id),
        or(isNull(apiKeys.lastUsedAt), lt(apiKeys.lastUsedAt, staleBefore)),
      ),
    );
}
