import type { NeighbourEdge, NeighbourLoader } from './bfs';
import type { Change } from './change';

export interface CachedEdge {
  target: string;
  type: string;
  weight: number;
}

export interface CachedNode {
  title: string;
  status: string;
  para: string[];
  /** Every link of the node, strongest first (weight desc, target asc). */
  adj: CachedEdge[];
}

const strongestFirst = (a: CachedEdge, b: CachedEdge) =>
  b.weight - a.weight || (a.target < b.target ? -1 : a.target > b.target ? 1 : 0);

/**
 * One tenant's graph in memory: nodes and sorted adjacency lists, at a known version of
 * the tenant's change log. Rebuilt from a snapshot, then moved forward change by change.
 */
export class TenantGraph {
  readonly nodes = new Map<string, CachedNode>();
  linkRows = 0;
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

  /** The node's own id string, shared by every edge that points at it (one string per node, not per row). */
  private readonly ids = new Map<string, string>();
  /** Link types are few: one string each. */
  private readonly types = new Map<string, string>();

  /** Building from pages: nodes first, then link rows, then `sortAdjacency()`. */
  addNode(n: { id: string; title: string; status: string; para: string[] }): void {
    this.ids.set(n.id, n.id);
    this.nodes.set(n.id, { title: n.title, status: n.status, para: n.para, adj: [] });
  }

  addLinkRow(l: { s: string; t: string; type: string; w: number }): void {
    const node = this.nodes.get(l.s);
    if (!node) return;
    let type = this.types.get(l.type);
    if (type === undefined) this.types.set(l.type, (type = l.type));
    node.adj.push({ target: this.ids.get(l.t) ?? l.t, type, weight: l.w });
    this.linkRows++;
  }

  sortAdjacency(): void {
    for (const n of this.nodes.values()) n.adj.sort(strongestFirst);
    this.ids.clear();
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
    const n = this.nodes.get(id);
    return n && n.status !== 'dismissed' ? n : undefined;
  }

  /** BFS loader: the strongest links of each id to visible nodes. */
  readonly load: NeighbourLoader = async (ids, perNode) => {
    const out = new Map<string, NeighbourEdge[]>();
    for (const id of ids) {
      // The cached edges themselves (they are NeighbourEdges): no object per edge scanned.
      const list: NeighbourEdge[] = [];
      for (const e of this.nodes.get(id)?.adj ?? []) {
        if (list.length >= perNode) break;
        if (this.visible(e.target)) list.push(e);
      }
      out.set(id, list);
    }
    return out;
  };

  private setEdge(from: string, edge: CachedEdge) {
    const node = this.nodes.get(from);
    if (!node) return;
    const i = node.adj.findIndex((e) => e.target === edge.target);
    if (i >= 0) node.adj.splice(i, 1);
    else this.linkRows++;
    const at = node.adj.findIndex((e) => strongestFirst(edge, e) < 0);
    node.adj.splice(at < 0 ? node.adj.length : at, 0, edge);
  }

  private dropEdge(from: string, to: string) {
    const node = this.nodes.get(from);
    const i = node ? node.adj.findIndex((e) => e.target === to) : -1;
    if (node && i >= 0) {
      node.adj.splice(i, 1);
      this.linkRows--;
    }
  }

  apply(version: number, change: Change): void {
    this.hubCache = undefined;
    if (change.k === 'node') {
      const existing = this.nodes.get(change.id);
      this.nodes.set(change.id, {
        title: change.title,
        status: change.status,
        para: change.para,
        adj: existing?.adj ?? [],
      });
    } else if (change.k === 'del') {
      for (const e of this.nodes.get(change.id)?.adj ?? []) this.dropEdge(e.target, change.id);
      this.linkRows -= this.nodes.get(change.id)?.adj.length ?? 0;
      this.nodes.delete(change.id);
    } else {
      for (const r of change.removed) {
        this.dropEdge(change.id, r);
        this.dropEdge(r, change.id);
      }
      for (const l of change.set) {
        this.setEdge(change.id, { target: l.t, type: l.type, weight: l.w });
        this.setEdge(l.t, { target: change.id, type: l.type, weight: l.w });
      }
    }
    this.version = version;
  }
}
