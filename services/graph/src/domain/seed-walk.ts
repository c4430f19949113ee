import quickselect from 'quickselect';
import type { SeedCore } from './seed-core';
import type { TenantGraph } from './tenant-graph';

/**
 * Per-slot scratch arrays shared by every walk (a walk runs start to end without yielding),
 * grown to the largest graph walked. Entries count only when their stamp is the current
 * walk's (or hop's), so nothing is cleared between walks.
 */
let stamp = 0;
let resultStamp = new Uint32Array(0);
let position = new Int32Array(0);
let candidateStamp = new Uint32Array(0);
let bestWeight = new Float64Array(0);
let bestParent = new Int32Array(0);

function scratchFor(slots: number): void {
  if (stamp > 0xfffffff0) {
    resultStamp.fill(0);
    candidateStamp.fill(0);
    stamp = 0;
  }
  if (resultStamp.length >= slots) return;
  const size = Math.max(slots, resultStamp.length * 2, 1024);
  resultStamp = new Uint32Array(size);
  position = new Int32Array(size);
  candidateStamp = new Uint32Array(size);
  bestWeight = new Float64Array(size);
  bestParent = new Int32Array(size);
  stamp = 0;
}

/**
 * The seed view's walk over a tenant's memory graph, on slots and typed arrays: the same
 * rules as `boundedBfs` + `frontierOf` (bfs.ts) and the edges among the result, which the
 * database path runs over ids (seed-walk.test.ts holds the two to the same answers):
 * - each hop considers the strongest `room + placed` links to visible nodes of every node of
 *   the previous hop; a node reachable from several parents keeps its strongest link, then
 *   the lowest parent id;
 * - when the bound bites, the strongest candidates are kept (weight desc, then id asc), the
 *   parents of the rest join the frontier, and the walk stops;
 * - the frontier also holds the deepest hop's nodes with links outside the result.
 * `seedId` must be a visible node of the graph.
 */
export function walkSeed(graph: TenantGraph, seedId: string, depth: number, maxNodes: number): SeedCore {
  const { idAt, visibleAt } = graph;
  scratchFor(idAt.length);
  const walk = ++stamp;
  const inResult = (slot: number) => resultStamp[slot] === walk;
  const place = (slot: number) => {
    resultStamp[slot] = walk;
    position[slot] = order.length;
    order.push(slot);
  };
  const byStrength = (a: number, b: number) =>
    bestWeight[b]! - bestWeight[a]! || (idAt[a]! < idAt[b]! ? -1 : idAt[a]! > idAt[b]! ? 1 : 0);

  const order: number[] = [];
  const depths: number[] = [0];
  const cutParents = new Set<number>();
  place(graph.findSlot(seedId)!);
  let frontier = [order[0]!];
  let deepest = 0;
  for (let hop = 1; hop <= depth && frontier.length > 0; hop++) {
    const room = maxNodes - order.length;
    if (room <= 0) break;
    const perNode = room + order.length;
    const hopStamp = ++stamp;
    const candidates: number[] = [];
    for (const parent of frontier) {
      const parentId = idAt[parent]!;
      let taken = 0;
      for (const e of visibleAt[parent]!.adj) {
        if (taken >= perNode) break;
        const t = e.slot;
        if (!visibleAt[t]) continue;
        taken++;
        if (inResult(t)) continue;
        if (candidateStamp[t] !== hopStamp) {
          candidateStamp[t] = hopStamp;
          bestWeight[t] = e.weight;
          bestParent[t] = parent;
          candidates.push(t);
        } else if (e.weight > bestWeight[t]! || (e.weight === bestWeight[t]! && parentId < idAt[bestParent[t]!]!)) {
          bestWeight[t] = e.weight;
          bestParent[t] = parent;
        }
      }
    }
    // Only the `room` strongest are kept (and ordered): select them first, then sort those alone.
    if (candidates.length > room) quickselect(candidates, room - 1, 0, candidates.length - 1, byStrength);
    const kept = candidates.slice(0, room).sort(byStrength);
    for (let i = room; i < candidates.length; i++) cutParents.add(bestParent[candidates[i]!]!);
    for (const t of kept) {
      place(t);
      depths.push(hop);
    }
    if (kept.length > 0) deepest = hop;
    frontier = kept;
    if (candidates.length > room) break;
  }
  return coreOf(graph, walk, order, depths, deepest, cutParents);
}

/** The view's nodes, the links among them (each once) and the frontier, from the walk's slots. */
function coreOf(
  graph: TenantGraph,
  walk: number,
  order: number[],
  depthList: number[],
  deepest: number,
  cutParents: Set<number>,
): SeedCore {
  const { idAt, visibleAt } = graph;
  const n = order.length;
  const ids = order.map((slot) => idAt[slot]!);
  const titles: string[] = new Array(n);
  const paraItemIds: string[][] = new Array(n);
  const connectionCounts = new Int32Array(n);
  const inside = new Int32Array(n);
  const sources: number[] = [];
  const targets: number[] = [];
  const weights: number[] = [];
  const types: string[] = [];
  for (let i = 0; i < n; i++) {
    const node = visibleAt[order[i]!]!;
    titles[i] = node.title;
    paraItemIds[i] = node.para;
    connectionCounts[i] = node.adj.length;
    const id = ids[i]!;
    for (const e of node.adj) {
      if (resultStamp[e.slot] !== walk) continue;
      inside[i]!++;
      if (id < idAt[e.slot]!) {
        sources.push(i);
        targets.push(position[e.slot]!);
        weights.push(e.weight);
        types.push(e.type);
      }
    }
  }
  const frontier = new Set<string>();
  for (const slot of cutParents) frontier.add(idAt[slot]!);
  for (let i = 0; i < n; i++) if (depthList[i] === deepest && connectionCounts[i]! > inside[i]!) frontier.add(ids[i]!);
  return {
    seedId: ids[0]!,
    ids,
    depths: Uint8Array.from(depthList),
    titles,
    paraItemIds,
    connectionCounts,
    edgeSource: Int32Array.from(sources),
    edgeTarget: Int32Array.from(targets),
    edgeWeight: Float64Array.from(weights),
    edgeType: types,
    frontierIds: [...frontier].sort(),
  };
}
