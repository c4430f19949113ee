import { LRUCache } from 'lru-cache';
import { Counter, Gauge, type Registry } from 'prom-client';
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
  /** Where `kg_view_cache_requests_total` and `kg_view_cache_bytes` are registered (none: not counted). */
  registry?: Registry;
}

interface Entry {
  token: string;
  /** The view's UTF-8 bytes: each answer writes them as they are (no encoding, no copy per request). */
  json: JsonBytes;
}

type Answer = JsonAnswer | JsonBytes;

/** A load in progress: the asks that arrive meanwhile wait for it rather than load again. */
interface Flight {
  answer: Promise<Answer>;
  /** Another ask joined: the view is asked twice, so it is kept. */
  join(): void;
}

/**
 * hit: served kept; miss: loaded; shared: served the load another ask of the same view
 * started; off: the cache is off.
 */
export type ViewCacheResult = 'hit' | 'miss' | 'shared' | 'off';

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
 * Asks of one view that arrive while it loads (a dashboard opened in several tabs, a view
 * shown to many at once after a write) wait for that load and share its answer.
 *
 * A neighbours page kept here carries its `next_cursor`, whose server-side entry lives 15
 * minutes from when the page was made: entries live at most `maxAgeSeconds` (60 s by default),
 * so a cursor served from here stays valid for 14 minutes or more.
 */
export class ViewCache {
  private readonly entries: LRUCache<string, Entry> | null;
  /** Views asked once recently: the next ask keeps the view. */
  private readonly seen = new LRUCache<string, true>({ max: 10_000 });
  /** Loads in progress, by token and view. */
  private readonly flights = new Map<string, Flight>();
  private readonly asks: Counter<'operation' | 'result'> | null;

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
    this.asks = opts.registry
      ? new Counter({
          name: 'kg_view_cache_requests_total',
          help: 'Graph views asked through the gateway, by operation and result (hit, miss, shared, off)',
          labelNames: ['operation', 'result'] as const,
          registers: [opts.registry],
        })
      : null;
    if (opts.registry) {
      const bytes: Gauge = new Gauge({
        name: 'kg_view_cache_bytes',
        help: 'Bytes of graph views kept by the gateway',
        registers: [opts.registry],
        collect: () => bytes.set(this.size),
      });
    }
  }

  /**
   * The tenant's view of `operation` named by `key` (its validated input), from the cache
   * when it holds it under the tenant's current token, else from `load` (and kept).
   */
  async view(
    tenantId: string,
    operation: string,
    key: string,
    load: () => Promise<JsonAnswer>,
    token: Promise<string> | null = this.token(tenantId),
  ): Promise<{ json: Answer; result: ViewCacheResult }> {
    const answer = await this.answer(tenantId, `${operation} ${key}`, load, token);
    this.asks?.inc({ operation, result: answer.result });
    return answer;
  }

  private async answer(
    tenantId: string,
    key: string,
    load: () => Promise<JsonAnswer>,
    token: Promise<string> | null,
  ): Promise<{ json: Answer; result: ViewCacheResult }> {
    if (!this.entries || !token) return { json: await load(), result: 'off' };
    const current = await token;
    const fullKey = `${tenantId}\u0000${key}`;
    const hit = this.entries.get(fullKey);
    if (hit?.token === current) return { json: hit.json, result: 'hit' };

    const flightKey = `${current}\u0000${fullKey}`;
    const running = this.flights.get(flightKey);
    if (running) {
      running.join();
      return { json: await running.answer, result: 'shared' };
    }
    let joined = false;
    const answer = this.loadAndKeep(fullKey, current, load, () => hit !== undefined || joined);
    this.flights.set(flightKey, { answer, join: () => (joined = true) });
    try {
      return { json: await answer, result: 'miss' };
    } finally {
      this.flights.delete(flightKey);
    }
  }

  /** Loads the view; keeps it when it was kept before, asked once recently, or asked while it loaded. */
  private async loadAndKeep(
    fullKey: string,
    token: string,
    load: () => Promise<JsonAnswer>,
    askedAgain: () => boolean,
  ): Promise<Answer> {
    const json = await load();
    if (this.seen.delete(fullKey) || askedAgain()) {
      const bytes = Buffer.from(json) as JsonBytes;
      this.entries!.set(fullKey, { token, json: bytes });
      return bytes;
    }
    this.seen.set(fullKey, true);
    return json;
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
