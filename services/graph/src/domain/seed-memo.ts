import { LRUCache } from 'lru-cache';

/**
 * Seed walks over the memory graph, kept by (tenant, graph version, query). A tenant's
 * version moves with every committed write, so an entry is never stale: a newer version
 * simply never asks for it again, and it ages out. Bounded by weight (nodes + edges held,
 * about 30 bytes each in a compact walk, seed-view.ts), least recently used first out; an
 * entry heavier than the whole budget is not kept.
 */
export class SeedMemo<V extends NonNullable<unknown>> {
  private readonly entries: LRUCache<string, V> | null;

  constructor(maxWeight: number) {
    this.entries = maxWeight > 0 ? new LRUCache<string, V>({ maxSize: maxWeight }) : null;
  }

  get(tenantId: string, version: number, query: string): V | undefined {
    return this.entries?.get(`${tenantId}|${version}|${query}`);
  }

  set(tenantId: string, version: number, query: string, value: V, weight: number): void {
    this.entries?.set(`${tenantId}|${version}|${query}`, value, { size: Math.max(1, weight) });
  }

  /** Nodes and edges held (for tests and metrics). */
  get weight(): number {
    return this.entries?.calculatedSize ?? 0;
  }
}
