import type { Db } from '@kg/db';
import type { Logger } from '@kg/logger';
import { changesSince, currentVersion, linkChunk, nodeChunk, type LinkRow } from '../store/snapshot';
import { SeedMemo } from './seed-memo';
import type { SeedCore } from './seed-core';
import { TenantGraph } from './tenant-graph';

export interface GraphCacheOptions {
  /** Most link rows held over all tenants; least recently used tenants go first. */
  maxLinkRows?: number;
  /**
   * This process makes every write of the graph (the embedded mode): it is told of each
   * commit (`changed`), so an unchanged tenant's graph is served without asking the
   * database for its version. Several replicas (distributed) must leave this off.
   */
  singleWriter?: boolean;
  /** Rows per statement while a tenant loads (default 10,000; requests' queries run between pages). */
  chunkRows?: number;
  /** Nodes + edges of seed walks kept over all tenants (default 400,000, about 12 MB; 0 keeps none). */
  seedMemoWeight?: number;
}

/**
 * Per-tenant graphs in memory for the graph views. A read asks the database for the
 * tenant's version (one primary-key lookup; none with `singleWriter` while the tenant is
 * unchanged); a stale graph replays the change log since its version, so a view reflects
 * every committed write, in any replica. Tenants beyond the budget (link rows held) are
 * evicted, least recently used first.
 *
 * No request waits for a whole tenant to load: `current` answers null while the graph is
 * not in memory and starts loading it in the background (keyset pages, then the change
 * log since the first page's version), and the views answer from the database meanwhile.
 */
export class GraphCache {
  /** Since the process started: reads served from memory, reads that found no graph (a load started), loads done, tenants evicted. */
  readonly stats = { hits: 0, misses: 0, loads: 0, evictions: 0 };
  private readonly graphs = new Map<string, TenantGraph>();
  private readonly loading = new Map<string, Promise<TenantGraph>>();
  private readonly refreshing = new Map<string, Promise<TenantGraph | null>>();
  /** singleWriter: tenants written since their graph was last brought up to date. */
  private readonly dirty = new Set<string>();
  private readonly maxLinkRows: number;
  private readonly singleWriter: boolean;
  private readonly chunkRows: number;
  /** Seed walks over the memory graphs, by tenant, version and query (views.ts). */
  readonly seeds: SeedMemo<SeedCore>;

  constructor(
    private readonly db: Db,
    private readonly logger: Logger,
    opts: GraphCacheOptions | number = {},
  ) {
    const o = typeof opts === 'number' ? { maxLinkRows: opts } : opts;
    this.maxLinkRows = o.maxLinkRows ?? 4_000_000;
    this.singleWriter = o.singleWriter ?? false;
    this.chunkRows = o.chunkRows ?? 10_000;
    this.seeds = new SeedMemo(o.seedMemoWeight ?? 400_000);
  }

  /** Views answering from the database right now: a load's next page waits for them (PGlite has one connection). */
  private databaseReaders = 0;

  /** Runs a view that reads the database while a graph loads; the load gives way to it. */
  async fromDatabase<T>(view: () => Promise<T>): Promise<T> {
    this.databaseReaders++;
    try {
      return await view();
    } finally {
      this.databaseReaders--;
    }
  }

  /** Before a load's next page: until no view reads the database, at most `maxMs` (a load must progress). */
  private async giveWay(maxMs = 250): Promise<void> {
    await yieldToRequests();
    for (const until = Date.now() + maxMs; this.databaseReaders > 0 && Date.now() < until;)
      await new Promise((resolve) => setTimeout(resolve, 5));
  }

  /** A write of the tenant committed (singleWriter: its next read checks the version again). */
  changed(tenantId: string): void {
    this.dirty.add(tenantId);
  }

  /** The tenant's graph up to date, waiting for a load if needed. */
  async get(tenantId: string): Promise<TenantGraph> {
    return (await this.current(tenantId)) ?? this.load(tenantId);
  }

  /**
   * The tenant's graph up to date, or null when it is not in memory (a background load has
   * then started): the caller answers from the database.
   */
  async current(tenantId: string): Promise<TenantGraph | null> {
    const graph = this.graphs.get(tenantId);
    if (!graph) {
      this.stats.misses++;
      void this.load(tenantId).catch((err: unknown) =>
        this.logger.warn({ err, tenantId }, 'graph view cache: background load failed'),
      );
      return null;
    }
    this.stats.hits++;
    if (this.singleWriter && !this.dirty.has(tenantId)) return this.touch(tenantId, graph);
    const inflight = this.refreshing.get(tenantId);
    if (inflight) return inflight;
    const p = this.refresh(tenantId, graph).finally(() => this.refreshing.delete(tenantId));
    this.refreshing.set(tenantId, p);
    return p;
  }

  private async refresh(tenantId: string, graph: TenantGraph): Promise<TenantGraph | null> {
    // Cleared before reading: a write committing meanwhile marks the tenant again.
    this.dirty.delete(tenantId);
    const version = await currentVersion(this.db, tenantId);
    if (graph.version === version) return this.touch(tenantId, graph);
    const log = await changesSince(this.db, tenantId, graph.version);
    if (log.length === 0 || log[0]!.version !== graph.version + 1) {
      // The log no longer reaches back to this graph: load it again, answer from the database meanwhile.
      this.graphs.delete(tenantId);
      return this.current(tenantId);
    }
    for (const entry of log) graph.apply(entry.version, entry.change);
    if (graph.version < version) {
      this.graphs.delete(tenantId);
      return this.current(tenantId);
    }
    return this.touch(tenantId, graph);
  }

  private touch(tenantId: string, graph: TenantGraph): TenantGraph {
    this.graphs.delete(tenantId);
    this.graphs.set(tenantId, graph);
    return graph;
  }

  private load(tenantId: string): Promise<TenantGraph> {
    const inflight = this.loading.get(tenantId);
    if (inflight) return inflight;
    const p = this.build(tenantId)
      .then((graph) => {
        this.stats.loads++;
        this.touch(tenantId, graph);
        this.evict();
        return graph;
      })
      .finally(() => this.loading.delete(tenantId));
    this.loading.set(tenantId, p);
    return p;
  }

  /**
   * Pages of the tenant's rows, then the change log since the version read first: pages read
   * at different moments are brought to one consistent version (changes set state, so
   * replaying one that a page already saw changes nothing).
   */
  private async build(tenantId: string): Promise<TenantGraph> {
    const started = Date.now();
    for (let attempt = 0; ; attempt++) {
      this.dirty.delete(tenantId);
      const since = await currentVersion(this.db, tenantId);
      const graph = new TenantGraph(since);
      for (let afterId: string | null = null; ;) {
        const rows = await nodeChunk(this.db, tenantId, afterId, this.chunkRows);
        for (const n of rows) graph.addNode(n);
        if (rows.length < this.chunkRows) break;
        afterId = rows.at(-1)!.id;
        await this.giveWay();
      }
      for (let after: LinkRow | null = null; ;) {
        const rows: LinkRow[] = await linkChunk(this.db, tenantId, after, this.chunkRows);
        for (const row of rows) graph.addLinkRow(row);
        if (rows.length < this.chunkRows) break;
        after = rows.at(-1)!;
        await this.giveWay();
      }
      graph.sortAdjacency();
      const log = await changesSince(this.db, tenantId, since);
      if (log.length > 0 && log[0]!.version !== since + 1 && attempt < 3) continue;
      for (const entry of log) graph.apply(entry.version, entry.change);
      this.logger.debug(
        { tenantId, nodes: graph.nodes.size, links: graph.linkRows, ms: Date.now() - started },
        'graph view cache loaded',
      );
      return graph;
    }
  }

  /** What is held now, over all tenants. */
  held(): { tenants: number; nodes: number; linkRows: number } {
    let nodes = 0;
    let linkRows = 0;
    for (const g of this.graphs.values()) {
      nodes += g.nodes.size;
      linkRows += g.linkRows;
    }
    return { tenants: this.graphs.size, nodes, linkRows };
  }

  private evict() {
    let total = 0;
    for (const g of this.graphs.values()) total += g.linkRows;
    for (const [tenant, g] of this.graphs) {
      if (total <= this.maxLinkRows || this.graphs.size === 1) break;
      this.graphs.delete(tenant);
      this.stats.evictions++;
      total -= g.linkRows;
    }
  }
}

/** Lets queued requests (and their queries) go first between two pages of a load. */
const yieldToRequests = () => new Promise<void>((resolve) => setImmediate(resolve));
