import { LRUCache } from 'lru-cache';
import type { JsonAnswer } from '@kg/trpc';
import type { ViewVersions } from '@kg/kv';
import type { JsonBytes } from '../routes/route';

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
  /** The view's UTF-8 bytes: each answer writes them as they are (no encoding, no copy per request). */
  json: JsonBytes;
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
 * A view is kept the second time it is asked (among the last 10,000 views asked once): a
 * view seen once, like most pages of a crawl, is not worth its memory, and keeping every one
 * would churn the cache and the heap (a 32 MiB cache filled with one-off pages grew the
 * embedded server's RSS by ~200 MiB in bench:http).
 *
 * A neighbours page kept here carries its `next_cursor`, whose server-side entry lives 15
 * minutes from when the page was made: entries live at most `maxAgeSeconds` (60 s by default),
 * so a cursor served from here stays valid for 14 minutes or more.
 */
export class ViewCache {
  private readonly entries: LRUCache<string, Entry> | null;
  /** Views asked once recently: the next ask keeps the view. */
  private readonly seen = new LRUCache<string, true>({ max: 10_000 });

  constructor(
    private readonly versions: ViewVersions,
    opts: ViewCacheOptions,
  ) {
    this.entries =
      opts.maxBytes > 0 && opts.maxAgeSeconds > 0
        ? new LRUCache<string, Entry>({
            maxSize: opts.maxBytes,
            sizeCalculation: (entry, key) => entry.json.length + key.length * 2 + 64,
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
    token: Promise<string> | null = this.token(tenantId),
  ): Promise<{ json: JsonAnswer | JsonBytes; result: ViewCacheResult }> {
    if (!this.entries || !token) return { json: await load(), result: 'off' };
    const current = await token;
    const fullKey = `${tenantId}\u0000${key}`;
    const hit = this.entries.get(fullKey);
    if (hit?.token === current) return { json: hit.json, result: 'hit' };
    const json = await load();
    if (hit || this.seen.delete(fullKey)) {
      const bytes = Buffer.from(json) as JsonBytes;
      this.entries.set(fullKey, { token: current, json: bytes });
      return { json: bytes, result: 'miss' };
    }
    this.seen.set(fullKey, true);
    return { json, result: 'miss' };
  }

  /**
   * The tenant's view token, read ahead (while the request's rate limits are consumed) and
   * handed to `view`; null when the cache is off.
   */
  token(tenantId: string): Promise<string> | null {
    return this.entries ? this.versions.current(tenantId) : null;
  }

  /** Bytes held (for metrics and tests). */
  get size(): number {
    return this.entries?.calculatedSize ?? 0;
  }
}
