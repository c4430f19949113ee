import {
  AppError,
  TOPICS,
  isId,
  notFound,
  unauthorized,
  type ApiKey,
  type ApiKeyEvent,
  type Identity,
} from '@kg/contracts';
import { enqueueEvent, newEventId } from '@kg/bus';
import { iso, isoOrNull, newId } from '@kg/db';
import {
  findApiKeyForVerification,
  insertApiKey,
  listApiKeys,
  revokeApiKey,
  touchApiKey,
  type ApiKeyRow,
} from '../store/api-keys';
import { outbox } from '../store/schema';
import type { Deps } from './deps';
import { SECRET_PATTERN, digestsEqual, hmacSha256, randomSecret, splitCredential } from './secrets';
import { recordUse } from './last-used';

export const toApiKey = (row: ApiKeyRow): ApiKey => ({
  id: row.id,
  name: row.name,
  prefix: row.prefix,
  created_at: iso(row.createdAt),
  last_used_at: isoOrNull(row.lastUsedAt),
  revoked_at: isoOrNull(row.revokedAt),
});

/** The characters of the secret shown in `prefix`, enough to tell keys apart, far too few to guess the rest. */
const PREFIX_SECRET_CHARS = 6;

/**
 * Only a signed-in person (a bearer token) creates or revokes API keys: a key that leaks
 * cannot mint further keys to outlive its own revocation, nor revoke its owner's keys.
 * Listing (no secrets) is open to keys too.
 */
export function assertSignedInPerson(identity: Identity): void {
  if (identity.credential.kind !== 'jwt')
    throw new AppError(
      'forbidden',
      'API keys are created and revoked only by a signed-in person (Authorization: Bearer), not with an API key',
    );
}

/**
 * Creates a key for the caller's tenant and user. The raw key `{key_id}.{secret}` is in
 * this answer only; the store keeps HMAC-SHA256(pepper, secret).
 */
export async function createApiKey(deps: Deps, identity: Identity, name: string): Promise<ApiKey & { key: string }> {
  assertSignedInPerson(identity);
  const id = newId('apiKey');
  const secret = randomSecret();
  const row = await insertApiKey(deps.db, {
    id,
    tenantId: identity.tenantId,
    userId: identity.subject,
    name,
    prefix: `${id}.${secret.slice(0, PREFIX_SECRET_CHARS)}`,
    secretHash: hmacSha256(deps.keys.pepper, secret),
    createdAt: deps.now(),
  });
  return { ...toApiKey(row), key: `${id}.${secret}` };
}

export const listTenantApiKeys = async (deps: Deps, tenantId: string): Promise<ApiKey[]> =>
  (await listApiKeys(deps.db, tenantId)).map(toApiKey);

/**
 * Revokes a key of the caller's tenant (idempotent). Malformed, unknown or another tenant's: 404.
 * The revocation and its `api_key.revoked` event commit together (outbox): every gateway drops
 * the key from its cache of verified keys when the event arrives, within API_KEY_CACHE_TTL_SECONDS
 * at the latest.
 */
export async function revokeTenantApiKey(deps: Deps, identity: Identity, id: string): Promise<void> {
  assertSignedInPerson(identity);
  if (!isId('apiKey', id)) throw notFound('API key');
  const found = await deps.db.transaction(async (tx) => {
    const row = await revokeApiKey(tx, identity.tenantId, id, deps.now());
    if (row) {
      const event: ApiKeyEvent = {
        id: newEventId(),
        type: 'api_key.revoked',
        tenant_id: identity.tenantId,
        occurred_at: deps.now().toISOString(),
        data: { api_key_id: id },
      };
      await enqueueEvent(tx, outbox, TOPICS.apiKeys, event);
    }
    return row !== null;
  });
  if (!found) throw notFound('API key');
  deps.afterCommit?.();
}

/**
 * Verifies a raw key `{key_id}.{secret}` (split at the first dot): looked up by id, the
 * HMAC compared in constant time. The gateway caches a success for API_KEY_CACHE_TTL_SECONDS
 * (a revocation event drops it sooner). Malformed, unknown, wrong secret or revoked: 401, all alike.
 */
export async function verifyApiKey(deps: Deps, raw: string): Promise<Identity> {
  const parts = splitCredential(raw);
  if (!parts || !isId('apiKey', parts.id) || !SECRET_PATTERN.test(parts.secret)) throw unauthorized('Invalid API key');
  const row = await findApiKeyForVerification(deps.db, parts.id);
  const presented = hmacSha256(deps.keys.pepper, parts.secret);
  if (!row || !digestsEqual(row.secretHash, presented) || row.revokedAt) throw unauthorized('Invalid API key');
  await recordUse(deps, row, (now, staleBefore) => touchApiKey(deps.db, row.tenantId, row.id, now, staleBefore));
  return {
    tenantId: row.tenantId,
    subject: row.userId,
    credential: { kind: 'api_key', id: row.id },
    email: row.email,
  };
}
