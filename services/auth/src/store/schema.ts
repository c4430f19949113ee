import { index, pgSchema, primaryKey, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { createdAt, optionalTimestamp, outboxTable, tenantIdColumn } from '@kg/db';

export const auth = pgSchema('auth');

/** A tenant: created by the first sign-in of an email, owned by that person. */
export const tenants = auth.table('tenants', { id: text().primaryKey(), createdAt: createdAt() });

/**
 * One row per email (stored lower-case); the unique index makes first sign-in race-safe.
 * The email is null for a person known only through an OpenID provider that did not vouch
 * for (verify) an address: an unverified address must never let a later sign-in join.
 */
export const users = auth.table(
  'users',
  {
    id: text().primaryKey(),
    tenantId: tenantIdColumn().references(() => tenants.id, { onDelete: 'cascade' }),
    email: text(),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex('users_email_idx').on(t.email), index('users_tenant_id_idx').on(t.tenantId)],
);

/** Single-use sign-in links. Only the sha256 of the token is stored, never the token. */
export const magicLinks = auth.table(
  'magic_links',
  {
    tokenHash: text().primaryKey(),
    email: text().notNull(),
    expiresAt: optionalTimestamp().notNull(),
    usedAt: optionalTimestamp(),
    createdAt: createdAt(),
  },
  /** The prune job deletes by expiry. */
  (t) => [index('magic_links_expires_at_idx').on(t.expiresAt)],
);

/**
 * Refresh tokens rotate within a family (one family per sign-in): each use marks the
 * token used and issues the next. Presenting a used token revokes the whole family.
 * Only the sha256 of the secret is stored.
 */
export const refreshTokens = auth.table(
  'refresh_tokens',
  {
    id: text().primaryKey(),
    familyId: text().notNull(),
    userId: text()
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    tenantId: tenantIdColumn(),
    tokenHash: text().notNull(),
    /** The token this one was rotated from (null for the first of a family): the refresh grace window's rule. */
    parentId: text(),
    expiresAt: optionalTimestamp().notNull(),
    usedAt: optionalTimestamp(),
    revokedAt: optionalTimestamp(),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex('refresh_tokens_token_hash_idx').on(t.tokenHash),
    index('refresh_tokens_family_id_idx').on(t.familyId),
    index('refresh_tokens_expires_at_idx').on(t.expiresAt),
  ],
);

/** A person as known to an OpenID provider: (issuer, subject) is the identity, never the email. */
export const identities = auth.table(
  'identities',
  {
    issuer: text().notNull(),
    subject: text().notNull(),
    userId: text()
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    tenantId: tenantIdColumn(),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.issuer, t.subject] }), index('identities_user_id_idx').on(t.userId)],
);

/** API keys: the secret is stored only as HMAC-SHA256 under a server-side pepper (hex). */
export const apiKeys = auth.table(
  'api_keys',
  {
    id: text().primaryKey(),
    tenantId: tenantIdColumn(),
    userId: text()
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    name: text().notNull(),
    prefix: text().notNull(),
    secretHash: text().notNull(),
    createdAt: createdAt(),
    lastUsedAt: optionalTimestamp(),
    revokedAt: optionalTimestamp(),
  },
  (t) => [index('api_keys_tenant_id_created_at_idx').on(t.tenantId, t.createdAt.desc(), t.id.desc())],
);

/** Events leave through this outbox in the transaction of their change (api_key.revoked). */
export const outbox = outboxTable(auth);
