import { index, pgSchema, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { createdAt, optionalTimestamp, tenantIdColumn } from '@kg/db';

export const auth = pgSchema('auth');

export const tenants = auth.table('tenants', { id: text().primaryKey(), createdAt: createdAt() });

export const users = auth.table(
  'users',
  { id: text().primaryKey(), tenantId: tenantIdColumn(), email: text().notNull(), createdAt: createdAt() },
  (t) => [uniqueIndex('users_email_idx').on(t.email)],
);

/** Only the sha256 of a magic-link token is stored. */
export const magicLinks = auth.table('magic_links', {
  tokenHash: text().primaryKey(),
  email: text().notNull(),
  expiresAt: optionalTimestamp().notNull(),
  usedAt: optionalTimestamp(),
  createdAt: createdAt(),
});

/** Refresh tokens rotate within a family; reuse of a used token revokes the family. */
export const refreshTokens = auth.table(
  'refresh_tokens',
  {
    id: text().primaryKey(),
    familyId: text().notNull(),
    userId: text().notNull(),
    tenantId: tenantIdColumn(),
    tokenHash: text().notNull(),
    expiresAt: optionalTimestamp().notNull(),
    usedAt: optionalTimestamp(),
    revokedAt: optionalTimestamp(),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex('refresh_tokens_token_hash_idx').on(t.tokenHash),
    index('refresh_tokens_family_id_idx').on(t.familyId),
  ],
);

/** API keys: the secret is stored only as HMAC-SHA256 under a server-side pepper. */
export const apiKeys = auth.table(
  'api_keys',
  {
    id: text().primaryKey(),
    tenantId: tenantIdColumn(),
    userId: text().notNull(),
    name: text().notNull(),
    prefix: text().notNull(),
    secretHash: text().notNull(),
    createdAt: createdAt(),
    lastUsedAt: optionalTimestamp(),
    revokedAt: optionalTimestamp(),
  },
  (t) => [index('api_keys_tenant_created_idx').on(t.tenantId, t.createdAt)],
);
