import { createHash } from 'node:crypto';
import { apiErrorFrom, type KgClient } from '@kg/sdk';
import type { Credential } from './credential.ts';

const CACHE_MS = 60_000;
const CACHE_MAX = 10_000;

/**
 * Who a credential acts for (`tenant_id/user_id`, from GET /auth/me with that credential),
 * remembered for a minute and never past a bearer token's own expiry, so a session is bound
 * to its caller without a round trip per message. Keys of the cache are SHA-256 digests:
 * no credential is kept in memory longer than its request.
 */
export class Principals {
  private readonly cache = new Map<string, { principal: string; until: number }>();

  private readonly clientFor: (authorization: string) => KgClient;
  private readonly now: () => number;

  constructor(clientFor: (authorization: string) => KgClient, now: () => number = Date.now) {
    this.clientFor = clientFor;
    this.now = now;
  }

  async resolve(cred: Credential): Promise<string> {
    const key = createHash('sha256').update(cred.header).digest('base64url');
    const t = this.now();
    const hit = this.cache.get(key);
    if (hit && hit.until > t) return hit.principal;
    this.cache.delete(key);
    const kg = this.clientFor(cred.header);
    const res = await kg.session.fetch(new Request(`${kg.baseUrl}/auth/me`));
    if (!res.ok) throw await apiErrorFrom(res);
    const me = (await res.json()) as { user_id: string; tenant_id: string };
    const principal = `${me.tenant_id}/${me.user_id}`;
    const until = Math.min(t + CACHE_MS, cred.expiresAt ?? Infinity);
    if (this.cache.size >= CACHE_MAX) this.cache.delete(this.cache.keys().next().value!);
    if (until > t) this.cache.set(key, { principal, until });
    return principal;
  }
}
