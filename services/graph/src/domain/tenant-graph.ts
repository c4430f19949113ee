import type { NeighbourEdge, NeighbourLoader } from './bfs';
import type { Change } from './change';

export interface CachedEdge {
  /** The other end's slot (`TenantGraph.idAt` gives its id). */
  slot: number;
  type: string;
  weight: number;
}

export interface CachedNode {
  title: string;
  status: string;
  para: string[];
  /** Every link of the node, strongest first (weight desc, then the other end's id asc). */
  adj: CachedEdge[];
}

/** A node and its links as plain data, ids instead of slots (tests compare graphs with it). */
export interface PlainNode {
  title: string;
  status: string;
  para: string[];
  adj: Array<{ target: string; type: string; weight: number }>;
}

/**
 * One tenant's graph in memory: nodes and sorted adjacency lists, at a known version of
 * the tenant's change log. Rebuilt from a snapshot, then moved forward change by change.
 *
 * Every id the graph meets (a node, or a link's other end) gets a slot, a dense integer
 * that never changes: edges point at slots, so a walk checks a neighbour with an array
 * read (`visibleAt`) instead of a map lookup, and marks what it has seen in typed arrays
 * (seed-walk.ts). An id keeps its slot after its node is deleted (ids are never reused).
 */
export class TenantGraph {
  readonly nodes = new Map<string, CachedNode>();
  /** By slot: the id (one string per node, shared by every edge that points at it). */
  readonly idAt: string[] = [];
  /** By slot: the node while it exists and is not dismissed. */
  readonly visibleAt: Array<CachedNode | undefined> = [];
  linkRows = 0;
  private readonly slots = new Map<string, number>();
  /** Link types are few: one string each. */
  private readonly types = new Map<string, string>();
  private hubCache: string | null | undefined;

  constructor(public version: number) {}

  static fromSnapshot(s: {
    version: number;
    nodes: Array<{ id: string; title: string; status: string; para: string[] }>;
    links: Array<{ s: string; t: string; type: string; w: number }>;
  }): TenantGraph {
    const g = new TenantGraph(s.version);
    for (const n of s.nodes) g.addNode(n);
    for (const l of s.links) g.addLinkRow(l);
    g.sortAdjacency();
    return g;
  }

  /** The id's slot, given one on first sight. */
  slotOf(id: string): number {
    let slot = this.slots.get(id);
    if (slot === undefined) {
      slot = this.idAt.length;
      this.slots.set(id, slot);
      this.idAt.push(id);
      this.visibleAt.push(undefined);
    }
    return slot;
  }

  /** The id's slot when the graph has met it. */
  findSlot(id: string): number | undefined {
    return this.slots.get(id);
  }

  /** Building from pages: nodes first, then link rows, then `sortAdjacency()`. */
  addNode(n: { id: string; title: string; status: string; para: string[] }): void {
    this.putNode(n.id, { title: n.title, status: n.status, para: n.para, adj: this.nodes.get(n.id)?.adj ?? [] });
  }

  addLinkRow(l: { s: string; t: string; type: string; w: number }): void {
    const node = this.nodes.get(l.s);
    if (!node) return;
    node.adj.push({ slot: this.slotOf(l.t), type: this.type(l.type), weight: l.w });
    this.linkRows++;
  }

  sortAdjacency(): void {
    for (const n of this.nodes.values()) n.adj.sort(this.strongestFirst);
  }

  /** The non-dismissed node with the most connections, ties broken by the lowest id. */
  hub(): string | null {
    if (this.hubCache !== undefined) return this.hubCache;
    let best: string | null = null;
    let degree = -1;
    for (const [id, n] of this.nodes) {
      if (n.status === 'dismissed') continue;
      if (n.adj.length > degree || (n.adj.length === degree && best !== null && id < best)) {
        best = id;
        degree = n.adj.length;
      }
    }
    this.hubCache = best;
    return best;
  }

  visible(id: string): CachedNode | undefined {
    const slot = this.slots.get(id);
    return slot === undefined ? undefined : this.visibleAt[slot];
  }

  /** The graph as plain data by id, sorted (ids instead of slots: two graphs built in another order compare equal). */
  plain(): Record<string, PlainNode> {
    const out: Record<string, PlainNode> = {};
    for (const id of [...this.nodes.keys()].sort()) {
      const n = this.nodes.get(id)!;
      out[id] = {
        title: n.title,
        status: n.status,
        para: n.para,
        adj: n.adj.map((e) => ({ target: this.idAt[e.slot]!, type: e.type, weight: e.weight })),
      };
    }
    return out;
  }

  /**
   * BFS loader over ids (the generic walk of bfs.ts, which the views run over the database):
   * the strongest links of each id to visible nodes. The views walk slots (seed-walk.ts);
   * tests hold that walk to this one.
   */
  readonly load: NeighbourLoader = async (ids, perNode) => {
    const out = new Map<string, NeighbourEdge[]>();
    for (const id of ids) {
      const list: NeighbourEdge[] = [];
      for (const e of this.nodes.get(id)?.adj ?? []) {
        if (list.length >= perNode) break;
        if (this.visibleAt[e.slot]) list.push({ target: this.idAt[e.slot]!, weight: e.weight });
      }
      out.set(id, list);
    }
    return out;
  };

  apply(version: number, change: Change): void {
    this.hubCache = undefined;
    if (change.k === 'node') {
      this.addNode(change);
    } else if (change.k === 'del') {
      const node = this.nodes.get(change.id);
      if (node) {
        const slot = this.slotOf(change.id);
        for (const e of node.adj) this.dropEdge(this.idAt[e.slot]!, slot);
        this.linkRows -= node.adj.length;
        this.nodes.delete(change.id);
        this.visibleAt[slot] = undefined;
      }
    } else {
      const from = this.slotOf(change.id);
      for (const r of change.removed) {
        this.dropEdge(change.id, this.slotOf(r));
        this.dropEdge(r, from);
      }
      for (const l of change.set) {
        const type = this.type(l.type);
        this.setEdge(change.id, { slot: this.slotOf(l.t), type, weight: l.w });
        this.setEdge(l.t, { slot: from, type, weight: l.w });
      }
    }
    this.version = version;
  }

  private putNode(id: string, node: CachedNode): void {
    this.nodes.set(id, node);
    this.visibleAt[this.slotOf(id)] = node.status === 'dismissed' ? undefined : node;
  }

  private type(name: string): string {
    let type = this.types.get(name);
    if (type === undefined) this.types.set(name, (type = name));
    return type;
  }

  private readonly strongestFirst = (a: CachedEdge, b: CachedEdge): number => {
    if (a.weight !== b.weight) return b.weight - a.weight;
    const x = this.idAt[a.slot]!;
    const y = this.idAt[b.slot]!;
    return x < y ? -1 : x > y ? 1 : 0;
  };

  private setEdge(from: string, edge: CachedEdge) {
    const node = this.nodes.get(from);
    if (!node) return;
    const i = node.adj.findIndex((e) => e.slot === edge.slot);
    if (i >= 0) node.adj.splice(i, 1);
    else this.linkRows++;
    const at = node.adj.findIndex((e) => this.strongestFirst(edge, e) < 0);
    node.adj.splice(at < 0 ? node.adj.length : at, 0, edge);
  }

  private dropEdge(from: string, to: number) {
    const node = this.nodes.get(from);
    const i = node ? node.adj.findIndex((e) => e.slot === to) : -1;
    if (node && i >= 0) {
      node.adj.splice(i, 1);
      this.linkRows--;
    }
  }
}
