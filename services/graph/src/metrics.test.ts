import { describe, expect, it } from 'vitest';
import { Registry } from 'prom-client';
import type { GraphCache } from './domain/graph-cache';
import { createGraphMetrics } from './metrics';

describe('graph metrics', () => {
  it('show the view cache’s counts and what it holds when scraped, and follow them', async () => {
    const cache = {
      stats: { hits: 7, misses: 2, loads: 2, evictions: 1 },
      held: () => ({ tenants: 1, nodes: 40, linkRows: 120 }),
    } as unknown as GraphCache;
    const registry = new Registry();
    registry.setDefaultLabels({ service: 'graph' });
    createGraphMetrics(cache).register(registry);
    const text = await registry.metrics();
    expect(text).toContain('kg_graph_view_cache_requests_total{result="hit",service="graph"} 7');
    expect(text).toContain('kg_graph_view_cache_requests_total{result="miss",service="graph"} 2');
    expect(text).toContain('kg_graph_view_cache_loads_total{service="graph"} 2');
    expect(text).toContain('kg_graph_view_cache_evictions_total{service="graph"} 1');
    expect(text).toContain('kg_graph_view_cache_link_rows{service="graph"} 120');
    cache.stats.hits = 9;
    expect(await registry.metrics()).toContain('kg_graph_view_cache_requests_total{result="hit",service="graph"} 9');
  });
});
