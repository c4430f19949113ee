import { LRUCache } from 'lru-cache';
import type { JsonAnswer } from '@kg/trpc';
import type { ViewVersions } from '@kg/kv';

export interface ViewCacheOptions {
  /** Most bytes of views held (least recently used go first); 0 turns the cache off. */
  maxBytes: number;
  /** Longest an entry is served, even while its token is current (the bound when a token write failed). */
  maxAgeSeconds: number;
  /** Milliseconds clock (tests). */
  now?: () => number;
}

interface Entry {
  token: string;
  json: JsonAnswer;
}

export type ViewCacheResult = 'hit' | 'miss' | 'off';

/**
 * Finished graph views (the JSON text the graph service wrote), kept per tenant and request
 * so a view asked again costs what an authenticated trivial request costs. An entry is served
 * only while the tenant's view token is the one it was kept under: every write that changes
 * what the tenant's views show draws a new token before it is answered (see ViewVersions), so
 * a view read after a write never comes from before it. The token is read before the view is
 * asked for, so an entry is never older than its token. Only successful answers are kept.
 *
 * A neighbours page kept here carries its `next_cursor`, whose server-side entry lives 15
 * minutes from when the page was made: entries live at most `maxAgeSeconds` (60 s by default),
 * so a cursor served from here stays valid for 14 minutes or more.
 */
export class ViewCache {
  private readonly entries: LRUCache<string, Entry> | null;

  constructor(
    private readonly versions: ViewVersions,
    opts: ViewCacheOptions,
  ) {
    this.entries =
      opts.maxBytes > 0 && opts.maxAgeSeconds > 0
        ? new LRUCache<string, Entry>({
            maxSize: opts.maxBytes,
            // UTF-16 code units: the byte size of the JSON text, within a factor of three.
            sizeCalculation: (entry, key) => entry.json.length + key.length + 64,
            ttl: opts.maxAgeSeconds * 1000,
            // Age is checked on read only: no timer per entry.
            ttlAutopurge: false,
            ...(opts.now ? { perf: { now: opts.now }, ttlResolution: 0 } : {}),
          })
        : null;
  }

  /**
   * The tenant's view named by `key` (the operation and its validated input), from the cache
   * when it holds it under the tenant's current token, else from `load` (and kept).
   */
  async view(
    tenantId: string,
    key: string,
    load: () => Promise<JsonAnswer>,
  ): Promise<{ json: JsonAnswer; result: ViewCacheResult }> {
    if (!this.entries) return { json: await load(), result: 'off' };
    const token = await this.versions.current(tenantId);
    const fullKey = `${tenantId}\u0000${key}`;
    const hit = this.entries.get(fullKey);
    if (hit?.token === token) return { json: hit.json, result: 'hit' };
    const json = await load();
    this.entries.set(fullKey, { token, json });
    return { json, result: 'miss' };
  }

  /** Bytes held (for metrics and tests). */
  get size(): number {
    return this.entries?.calculatedSize ?? 0;
  }
}
