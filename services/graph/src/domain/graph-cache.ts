import type { Db } from '@kg/db';
import type { Logger } from '@kg/logger';
import { changesSince, currentVersion, loadSnapshot } from '../store/snapshot';
import { TenantGraph } from './tenant-graph';

/**
 * Per-tenant graphs in memory for the graph views. Every read first asks the database
 * for the tenant's version (one primary-key lookup); a stale graph replays the change
 * log since its version, so a view reflects every committed write, in any replica.
 * Tenants beyond the budget (link rows held) are evicted, least recently used first.
 */
export class GraphCache {
  private readonly graphs = new Map<string, TenantGraph>();
  private readonly pending = new Map<string, Promise<TenantGraph>>();

  constructor(
    private readonly db: Db,
    private readonly logger: Logger,
    private readonly maxLinkRows = 4_000_000,
  ) {}

  async get(tenantId: string): Promise<TenantGraph> {
    const inflight = this.pending.get(tenantId);
    if (inflight) return inflight;
    const p = this.fresh(tenantId).finally(() => this.pending.delete(tenantId));
    this.pending.set(tenantId, p);
    return p;
  }

  private async fresh(tenantId: string): Promise<TenantGraph> {
    const version = await currentVersion(this.db, tenantId);
    let graph = this.graphs.get(tenantId);
    if (graph && graph.version !== version) {
      const log = await changesSince(this.db, tenantId, graph.version);
      if (log.length === 0 || log[0]!.version !== graph.version + 1) graph = undefined;
      else for (const entry of log) graph.apply(entry.version, entry.change);
    }
    if (!graph || graph.version < version) {
      const started = Date.now();
      graph = TenantGraph.fromSnapshot(await loadSnapshot(this.db, tenantId));
      this.logger.debug({ tenantId, nodes: graph.nodes.size, ms: Date.now() - started }, 'graph view cache loaded');
    }
    this.graphs.delete(tenantId);
    this.graphs.set(tenantId, graph);
    this.evict();
    return graph;
  }

  private evict() {
    let total = 0;
    for (const g of this.graphs.values()) total += g.linkRows;
    for (const [tenant, g] of this.graphs) {
      if (total <= this.maxLinkRows || this.graphs.size === 1) break;
      this.graphs.delete(tenant);
      total -= g.linkRows;
    }
  }
}
