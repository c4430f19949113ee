/**
 * Synthetic tenant graphs with a realistic degree distribution: preferential attachment
 * (Barabási–Albert), so degrees follow a power law with a few large hubs. Deterministic
 * for a given seed. A "link" is one bidirectional relationship (stored as two rows).
 */
export interface SyntheticGraph {
  ids: string[];
  /** Endpoints of link k: a[k] < b[k] are node indexes. */
  a: Int32Array;
  b: Int32Array;
  weight: Float64Array;
  type: Uint8Array;
}

export const LINK_TYPES = ['related', 'references', 'part_of', 'supports', 'contradicts', 'derived_from'];

function mulberry32(seed: number) {
  let t = seed >>> 0;
  return () => {
    t = (t + 0x6d2b79f5) >>> 0;
    let r = Math.imul(t ^ (t >>> 15), 1 | t);
    r = (r + Math.imul(r ^ (r >>> 7), 61 | r)) ^ r;
    return ((r ^ (r >>> 14)) >>> 0) / 4294967296;
  };
}

const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';
/** A valid, sortable TypeID for node index i (body: '0' + base32(i) left-padded). */
export function nodeId(i: number): string {
  let body = '';
  for (let n = i; body.length < 25; n = Math.floor(n / 32)) body = ALPHABET[n % 32] + body;
  return `node_0${body}`;
}

export function generateGraph(nodes: number, links: number, seed = 42): SyntheticGraph {
  const rand = mulberry32(seed);
  const perNode = Math.max(1, Math.round(links / nodes));
  const a = new Int32Array(links);
  const b = new Int32Array(links);
  // Each endpoint appears once per incident link: sampling it is preferential attachment.
  const endpoints = new Int32Array(links * 2);
  let ends = 0;
  let count = 0;
  const seen = new Set<number>();
  for (let v = 1; v < nodes && count < links; v++) {
    seen.clear();
    const want = Math.min(perNode, v);
    for (let tries = 0; seen.size < want && tries < want * 4; tries++) {
      const u = ends === 0 || rand() < 0.1 ? Math.floor(rand() * v) : endpoints[Math.floor(rand() * ends)]!;
      if (u === v || seen.has(u)) continue;
      seen.add(u);
      a[count] = Math.min(u, v);
      b[count] = Math.max(u, v);
      endpoints[ends++] = u;
      endpoints[ends++] = v;
      if (++count === links) break;
    }
  }
  const weight = new Float64Array(count);
  const type = new Uint8Array(count);
  for (let k = 0; k < count; k++) {
    weight[k] = Math.max(0.01, Math.round(rand() * 100) / 100);
    type[k] = Math.floor(rand() * LINK_TYPES.length);
  }
  return { ids: Array.from({ length: nodes }, (_, i) => nodeId(i)), a: a.slice(0, count), b: b.slice(0, count), weight, type };
}
