import { isId, notFound, unauthorized, type ApiKey, type Identity } from '@kg/contracts';
import { isoOrNull, iso, newId } from '@kg/db';
import { findApiKey, insertApiKey, listApiKeys, revokeApiKey, touchApiKey, type ApiKeyRow } from '../store/api-keys';
import { LAST_USED_GRANULARITY_MS, type AuthContext } from './deps';
import { digestsEqual, hmac, randomSecret } from './secrets';

export const toApiKey = (row: ApiKeyRow): ApiKey => ({
  id: row.id,
  name: row.name,
  prefix: row.prefix,
  created_at: iso(row.createdAt),
  last_used_at: isoOrNull(row.lastUsedAt),
  revoked_at: isoOrNull(row.revokedAt),
});

export async function createApiKey(ctx: AuthContext, identity: Identity, name: string) {
  const id = newId('apiKey');
  const secret = randomSecret();
  const row = await insertApiKey(ctx.db, {
    id,
    tenantId: identity.tenantId,
    userId: identity.subject,
    name,
    prefix: `${id}.${secret.slice(0, 6)}`,
    secretHash: hmac(ctx.keys.pepper, secret),
  });
  return { ...toApiKey(row), key: `${id}.${secret}` };
}

export const listKeys = async (ctx: AuthContext, tenantId: string) =>
  (await listApiKeys(ctx.db, tenantId)).map(toApiKey);

export async function revokeKey(ctx: AuthContext, tenantId: string, id: string): Promise<void> {
  if (!isId('apiKey', id) || !(await revokeApiKey(ctx.db, tenantId, id, ctx.now()))) throw notFound('API key');
}

/** Verifies `{key_id}.{secret}`: lookup by id, HMAC compared in constant time, revocation honoured at once. */
export async function verifyKey(ctx: AuthContext, raw: string): Promise<Identity> {
  const dot = raw.indexOf('.');
  const id = dot > 0 ? raw.slice(0, dot) : '';
  const secret = raw.slice(dot + 1);
  if (!isId('apiKey', id) || secret.length < 16) throw unauthorized('Invalid API key');
  const row = await findApiKey(ctx.db, id);
  if (!row || row.revokedAt || !digestsEqual(row.secretHash, hmac(ctx.keys.pepper, secret)))
    throw unauthorized('Invalid API key');
  const now = ctx.now();
  if (now.getTime() - (ctx.lastTouched.get(id) ?? 0) >= LAST_USED_GRANULARITY_MS) {
    ctx.lastTouched.set(id, now.getTime());
    await touchApiKey(ctx.db, id, now, new Date(now.getTime() - LAST_USED_GRANULARITY_MS));
  }
  return { tenantId: row.tenantId, subject: row.userId, credential: { kind: 'api_key', id } };
}
