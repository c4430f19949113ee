/** A ranked candidate: node id and a score where higher is better. */
export interface Scored {
  id: string;
  score: number;
}

/**
 * Default semantic weight of hybrid fusion (HYBRID_SEMANTIC_WEIGHT overrides it). Chosen by
 * `npm run bench:search` on the tuning split of its known-item set (283 queries, weights
 * 0.30–0.90 by 0.05 through this function): R@10 0.890 at 0.55–0.60, MRR@10 higher at 0.60;
 * the reported split then gave hybrid R@10 0.890 against 0.869 semantic and 0.774 keyword
 * (docs/benchmarks.md "Search quality", docs/API.md "Hybrid search").
 */
export const SEMANTIC_WEIGHT = 0.6;

/** Scales scores to [0, 1] over the list (max → 1, min → 0; a single or all-equal list → 1). */
export function minMax(list: Scored[]): Map<string, number> {
  const scores = list.map((h) => h.score);
  const lo = Math.min(...scores);
  const hi = Math.max(...scores);
  return new Map(list.map((h) => [h.id, hi === lo ? 1 : (h.score - lo) / (hi - lo)]));
}

/**
 * Hybrid score of each candidate of either side: weight × normalised semantic score +
 * (1 − weight) × normalised keyword score, a side where the node is not a candidate counting
 * 0. Ordered by fused score descending, then id ascending.
 */
export function fuse(keyword: Scored[], semantic: Scored[], weight = SEMANTIC_WEIGHT): Scored[] {
  const k = minMax(keyword);
  const s = minMax(semantic);
  const ids = new Set([...k.keys(), ...s.keys()]);
  return [...ids]
    .map((id) => ({ id, score: weight * (s.get(id) ?? 0) + (1 - weight) * (k.get(id) ?? 0) }))
    .sort(byScoreThenId);
}

export function byScoreThenId(a: Scored, b: Scored): number {
  if (a.score !== b.score) return b.score - a.score;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}
