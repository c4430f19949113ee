import { Counter, Gauge, type Registry } from 'prom-client';
import type { GraphCache } from './domain/graph-cache';

/**
 * The graph-view cache on /metrics: reads served from memory against reads that found no
 * graph (answered from the database while it loads), loads and evictions, and what it holds.
 * With tenant-affine routing each replica holds only its share of the tenants.
 */
export function createGraphMetrics(graphs: GraphCache) {
  const counter = (name: string, help: string, read: () => number) =>
    new Counter({
      name,
      help,
      registers: [],
      // The cache counts; the counter shows its count when scraped.
      collect() {
        this.reset();
        this.inc(read());
      },
    });
  const gauge = (name: string, help: string, read: () => number) =>
    new Gauge({
      name,
      help,
      registers: [],
      collect() {
        this.set(read());
      },
    });
  const requests = new Counter({
    name: 'kg_graph_view_cache_requests_total',
    help: 'Graph views by whether their tenant graph was in memory (hit) or not (miss: answered from the database while it loads)',
    labelNames: ['result'] as const,
    registers: [],
    // The cache counts; the counter shows its counts when scraped.
    collect() {
      this.reset();
      this.inc({ result: 'hit' }, graphs.stats.hits);
      this.inc({ result: 'miss' }, graphs.stats.misses);
    },
  });
  const metrics = [
    requests,
    counter('kg_graph_view_cache_loads_total', 'Tenant graphs loaded into memory', () => graphs.stats.loads),
    counter(
      'kg_graph_view_cache_evictions_total',
      'Tenant graphs dropped, least recently used first, to keep within the budget of link rows',
      () => graphs.stats.evictions,
    ),
    gauge('kg_graph_view_cache_tenants', 'Tenant graphs held in memory', () => graphs.held().tenants),
    gauge('kg_graph_view_cache_nodes', 'Nodes held in memory over all tenants', () => graphs.held().nodes),
    gauge('kg_graph_view_cache_link_rows', 'Link rows held in memory over all tenants', () => graphs.held().linkRows),
  ];
  return {
    register(registry: Registry) {
      for (const m of metrics) registry.registerMetric(m);
    },
  };
}
