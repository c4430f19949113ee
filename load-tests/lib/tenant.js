// A realistic tenant for the graph scenarios, loaded through the public API in setup():
// the bench's generator (bench/graph/generate.ts: preferential attachment, a few large hubs,
// deterministic for a seed) ported to k6's JavaScript, then POST /nodes and
// PATCH /nodes/:id/links in parallel batches. Returns what the checks need: the ids and each
// node's neighbour set, so a walk can be checked against the graph it walks.
import http from 'k6/http';
import { fail } from 'k6';
import { API } from './target.js';

export const LINK_TYPES = ['related', 'references', 'part_of', 'supports', 'contradicts', 'derived_from'];

function mulberry32(seed) {
  let t = seed >>> 0;
  return () => {
    t = (t + 0x6d2b79f5) >>> 0;
    let r = Math.imul(t ^ (t >>> 15), 1 | t);
    r = (r + Math.imul(r ^ (r >>> 7), 61 | r)) ^ r;
    return ((r ^ (r >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Preferential attachment (as bench/graph/generate.ts): node v links to up to `perNode`
 * earlier nodes, picked mostly in proportion to their degree. Links: [a, b, weight, type] with a < b.
 */
export function generateLinks(nodes, perNode, seed = 42) {
  const rand = mulberry32(seed);
  const endpoints = [];
  const links = [];
  for (let v = 1; v < nodes; v++) {
    const picked = new Set();
    const want = Math.min(perNode, v);
    for (let tries = 0; picked.size < want && tries < want * 4; tries++) {
      const u =
        endpoints.length === 0 || rand() < 0.1
          ? Math.floor(rand() * v)
          : endpoints[Math.floor(rand() * endpoints.length)];
      if (u === v || picked.has(u)) continue;
      picked.add(u);
      endpoints.push(u, v);
      const weight = Math.round((0.1 + rand() * 0.9) * 100) / 100;
      links.push([u, v, weight, LINK_TYPES[Math.floor(rand() * LINK_TYPES.length)]]);
    }
  }
  return links;
}

/** Runs `requests` (k6 batch entries) `size` at a time; fails setup on any other status than `want`. */
function batched(requests, size, want, what) {
  const out = [];
  for (let i = 0; i < requests.length; i += size) {
    for (const res of http.batch(requests.slice(i, i + size))) {
      if (res.status !== want) fail(`setup: ${what} answered ${res.status}: ${res.body}`);
      out.push(res);
    }
  }
  return out;
}

/**
 * Creates `nodes` nodes titled with `tag` and links them, then answers `{ ids, neighbours }`
 * where neighbours[i] lists the indexes linked to node i. PATCH /nodes/:id/links replaces a
 * node's links whole (reverse links included), so every node is sent its complete final set:
 * the batches may then run in any order and in parallel and still end in the same graph.
 */
export function loadTenant(params, { nodes, perNode, tag, batch = 20 }) {
  const create = [];
  for (let i = 0; i < nodes; i++) {
    const body = { title: `${tag} node ${i}`, content: `Node ${i} of the load tenant ${tag}.`, tags: ['load'] };
    create.push(['POST', `${API}/nodes`, JSON.stringify(body), { ...params, tags: { name: 'setup node' } }]);
  }
  const ids = batched(create, batch, 201, 'POST /nodes').map((r) => r.json('id'));
  const links = generateLinks(nodes, perNode);
  const neighbours = ids.map(() => []);
  const full = ids.map(() => []);
  for (const [a, b, weight, type] of links) {
    neighbours[a].push(b);
    neighbours[b].push(a);
    full[a].push({ target_id: ids[b], type, weight });
    full[b].push({ target_id: ids[a], type, weight });
  }
  const patch = [];
  full.forEach((set, i) => {
    if (set.length === 0) return;
    if (set.length > 500) fail(`setup: node ${i} has ${set.length} links, above the 500 one request takes`);
    const body = JSON.stringify({ links: set });
    patch.push(['PATCH', `${API}/nodes/${ids[i]}/links`, body, { ...params, tags: { name: 'setup links' } }]);
  });
  batched(patch, batch, 200, 'PATCH /nodes/:id/links');
  return { ids, neighbours, links: links.length };
}
