import { randomBytes } from 'node:crypto';
import type { KvStore } from './port';

/** How long a tenant's view token lives without a write (a day); an expired one is drawn again. */
export const VIEW_TOKEN_TTL_SECONDS = 24 * 3600;

/**
 * Per-tenant tokens of the graph views: whoever commits a write that changes what a tenant's
 * views show (the graph service, and PARA for the placements) draws a new token before it
 * answers, and a cache of finished views (the gateway's) serves an entry only while the token
 * it was filled under is still the tenant's token. A token is never drawn twice (a random
 * prefix per process and a counter), so a token that expired and came back cannot revive old
 * entries. The tokens live in the shared kv store: memory in the one-process mode, Redis when
 * the services are separate processes.
 */
export interface ViewVersions {
  /**
   * The tenant's token. When it has none (never written, or expired) one is drawn here; a
   * view read after this call is at least as new as the token, so it may be kept under it.
   */
  current(tenantId: string): Promise<string>;
  /** A write that changes the tenant's views committed: every view kept before is stale. */
  changed(tenantId: string): Promise<void>;
}

export function createViewVersions(kv: KvStore, ttlSeconds = VIEW_TOKEN_TTL_SECONDS): ViewVersions {
  const prefix = randomBytes(6).toString('base64url');
  let counter = 0;
  const draw = () => `${prefix}.${(++counter).toString(36)}`;
  const key = (tenantId: string) => `views:${tenantId}`;
  return {
    async current(tenantId) {
      const token = await kv.get(key(tenantId));
      if (token) return token;
      // Concurrent first reads (here or in another replica) agree on one token.
      return kv.setIfAbsent(key(tenantId), draw(), ttlSeconds);
    },
    async changed(tenantId) {
      await kv.set(key(tenantId), draw(), ttlSeconds);
    },
  };
}

/**
 * What a writing service calls after each committed write of a tenant: draws the tenant's new
 * view token, and never fails the write it follows (answering an error would invite a retry of
 * a committed write). When the kv store fails, `onError` hears of it, and the gateway serves the
 * tenant's kept views for at most its VIEW_CACHE_MAX_AGE_SECONDS.
 */
export function viewChangeNotifier(
  kv: KvStore,
  onError: (err: unknown, tenantId: string) => void,
): (tenantId: string) => Promise<void> {
  const versions = createViewVersions(kv);
  return (tenantId) => versions.changed(tenantId).catch((err: unknown) => onError(err, tenantId));
}
