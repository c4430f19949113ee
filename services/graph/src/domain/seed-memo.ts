/**
 * Seed walks over the memory graph, kept by (tenant, graph version, query). A tenant's
 * version moves with every committed write, so an entry is never stale: a newer version
 * simply never asks for it again, and it ages out. Bounded by weight (nodes + edges held,
 * about 30 bytes each in a compact walk, seed-view.ts), least recently used first out.
 */
export class SeedMemo<V> {
  private readonly entries = new Map<string, { value: V; weight: number }>();
  private held = 0;

  constructor(private readonly maxWeight: number) {}

  get(tenantId: string, version: number, query: string): V | undefined {
    const key = `${tenantId}|${version}|${query}`;
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry.value;
  }

  set(tenantId: string, version: number, query: string, value: V, weight: number): void {
    if (weight > this.maxWeight) return;
    const key = `${tenantId}|${version}|${query}`;
    this.drop(key);
    this.entries.set(key, { value, weight });
    this.held += weight;
    for (const oldest of this.entries.keys()) {
      if (this.held <= this.maxWeight) break;
      this.drop(oldest);
    }
  }

  /** Nodes and edges held (for tests and metrics). */
  get weight(): number {
    return this.held;
  }

  private drop(key: string) {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.entries.delete(key);
    this.held -= entry.weight;
  }
}
