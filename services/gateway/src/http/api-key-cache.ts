import { createHash } from 'node:crypto';
import type { Identity } from '@kg/contracts';

export interface ApiKeyCacheOptions {
  /** How long a verified key is trusted without asking the auth service again; 0 turns the cache off. */
  ttlSeconds: number;
  /** Most keys held (least recently used go first). */
  maxEntries: number;
  now?: () => number;
}

interface Entry {
  identity: Identity;
  expiresAt: number;
}

/**
 * Verified API keys, kept for a few seconds so a request does not go to the auth service
 * and its database each time. Entries are keyed by a SHA-256 of the whole presented key
 * (a wrong secret never matches a cached principal; no raw secret is held). Only successes
 * are kept; failures always reach the auth service.
 *
 * Staleness is bounded: an entry lives at most `ttlSeconds`. A revocation also drops its
 * key at once when the auth service's `api_key.revoked` event arrives (`revoke`), so the
 * TTL is the bound only when the bus is late or down. A verification that was in flight
 * while a revocation arrived is not cached (the revocation epoch changed meanwhile).
 *
 * The feed of revocations says when it is live (`setLive`): until its consumer receives
 * every event published from then on, nothing is cached, since a revocation made in that
 * window would never reach this cache (a new Kafka consumer group starting at the newest
 * offset skips what was published while it joined). Without a feed the cache is live.
 * Concurrent misses of one key share a single call.
 */
export class ApiKeyCache {
  private readonly entries = new Map<string, Entry>();
  private readonly inflight = new Map<string, Promise<Identity>>();
  private epoch = 0;
  private live = true;
  private readonly now: () => number;

  constructor(private readonly opts: ApiKeyCacheOptions) {
    this.now = opts.now ?? Date.now;
  }

  get size(): number {
    return this.entries.size;
  }

  async verify(rawKey: string, verifyRemote: (rawKey: string) => Promise<Identity>): Promise<Identity> {
    if (this.opts.ttlSeconds <= 0) return verifyRemote(rawKey);
    const hash = createHash('sha256').update(rawKey).digest('base64url');
    const hit = this.entries.get(hash);
    if (hit) {
      if (hit.expiresAt > this.now()) {
        // Most recently used last: Map keeps insertion order, so eviction takes the first.
        this.entries.delete(hash);
        this.entries.set(hash, hit);
        return hit.identity;
      }
      this.entries.delete(hash);
    }
    const pending = this.inflight.get(hash);
    if (pending) return pending;
    const epoch = this.epoch;
    const call = verifyRemote(rawKey)
      .then((identity) => {
        if (epoch === this.epoch && this.live) this.store(hash, identity);
        return identity;
      })
      .finally(() => this.inflight.delete(hash));
    this.inflight.set(hash, call);
    return call;
  }

  /** Drops every entry of this key id (the auth service revoked it). */
  revoke(keyId: string): void {
    this.epoch++;
    for (const [hash, entry] of this.entries)
      if (entry.identity.credential.kind === 'api_key' && entry.identity.credential.id === keyId)
        this.entries.delete(hash);
  }

  /**
   * Whether revocations reach this cache now. Not live: nothing is cached and what was held
   * is dropped (a consumer that rejoins its group may have missed events meanwhile).
   */
  setLive(live: boolean): void {
    if (live === this.live) return;
    this.live = live;
    if (live) return;
    this.epoch++;
    this.entries.clear();
  }

  private store(hash: string, identity: Identity) {
    this.entries.set(hash, { identity, expiresAt: this.now() + this.opts.ttlSeconds * 1000 });
    while (this.entries.size > this.opts.maxEntries) {
      const oldest = this.entries.keys().next().value;
      if (oldest === undefined) break;
      this.entries.delete(oldest);
    }
  }
}
