import { CONTEXT_LIMIT } from '@kg/contracts';
import type { Db } from '@kg/db';
import type { IndexedNode, NodeSource } from '../indexing/indexer';
import { nodePassages } from '../indexing/text';
import { recentDocuments } from '../store/documents';
import { minMax } from './fusion';
import type { Ranker } from './search';

/** A link of a focus node, as graph's `search.links` answers it. */
export interface FocusLink {
  source_id: string;
  target_id: string;
  type: string;
  weight: number;
}
export type LinkSource = (tenantId: string, ids: string[]) => Promise<FocusLink[]>;

/**
 * Signal weights of the context score (each signal in [0, 1]; they sum to 1):
 * graph proximity (strongest link weight to a focus node) 0.4, similarity to the focus by the
 * request's mode (cosine for semantic, the fused score for hybrid, min-max normalised BM25 for
 * keyword) 0.35, validated over raw
 * 0.1, recency (half-life 30 days) 0.15. Then maximal marginal relevance (λ 0.7) picks the
 * order, with word overlap (Jaccard of title and summary words) as the redundancy measure.
 */
export const CONTEXT_WEIGHTS = { proximity: 0.4, similarity: 0.35, validated: 0.1, recency: 0.15 } as const;
export const MMR_LAMBDA = 0.7;
const HALF_LIFE_DAYS = 30;
/** Similar candidates taken per request, and recent ones in the fallback. */
const CANDIDATES = 60;

export interface ContextDeps {
  db: Db;
  ranker: Ranker;
  nodes: NodeSource;
  links: LinkSource;
  now?: () => Date;
}

interface Candidate {
  node: IndexedNode;
  score: number;
  reasons: string[];
  words: Set<string>;
}

const wordsOf = (n: IndexedNode) => new Set(`${n.title} ${n.summary}`.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []);
const jaccard = (a: Set<string>, b: Set<string>) => {
  if (a.size === 0 || b.size === 0) return 0;
  let both = 0;
  for (const w of a) if (b.has(w)) both += 1;
  return both / (a.size + b.size - both);
};
const quote = (title: string) => `“${title.length > 60 ? `${title.slice(0, 57)}…` : title}”`;

/** Greedy MMR: each next node maximises λ·score − (1 − λ)·max overlap with those already picked. */
export function diversify<T extends { score: number; words: Set<string> }>(items: T[], limit: number): T[] {
  const rest = [...items];
  const picked: T[] = [];
  while (picked.length < limit && rest.length > 0) {
    let best = 0;
    let bestValue = -Infinity;
    rest.forEach((item, i) => {
      const overlap = Math.max(0, ...picked.map((p) => jaccard(p.words, item.words)));
      const value = MMR_LAMBDA * item.score - (1 - MMR_LAMBDA) * overlap;
      if (value > bestValue) [best, bestValue] = [i, value];
    });
    picked.push(rest.splice(best, 1)[0]!);
  }
  return picked;
}

export function createContextRanker(deps: ContextDeps) {
  const now = deps.now ?? (() => new Date());

  /**
   * Similarity of candidates to the focus, in [0, 1], by the request's mode: cosine to the
   * focus nodes' first passages (semantic), min-max normalised BM25 of their titles (keyword),
   * or w × cosine + (1 − w) × normalised BM25 (hybrid, w the semantic weight of hybrid search; the cosine
   * is not min-max normalised here, so a lone weak candidate does not count as a perfect one).
   */
  async function similarToFocus(
    tenantId: string,
    focus: IndexedNode[],
    mode: 'keyword' | 'semantic' | 'hybrid',
  ): Promise<Map<string, number>> {
    if (focus.length === 0) return new Map();
    const text = focus.map((n) => nodePassages(n)[0] ?? n.title).join(' ');
    const [keyword, semantic] = await Promise.all([
      mode === 'semantic'
        ? []
        : deps.ranker.keyword(
            tenantId,
            focus
              .map((n) => n.title)
              .join(' ')
              .slice(0, 500),
            {},
            CANDIDATES,
          ),
      mode === 'keyword' ? [] : deps.ranker.semantic(tenantId, text.slice(0, 4000), {}, CANDIDATES),
    ]);
    const k = minMax(keyword);
    const cos = new Map(semantic.map((h) => [h.id, h.score]));
    if (mode === 'keyword') return k;
    if (mode === 'semantic') return cos;
    const ids = new Set([...k.keys(), ...cos.keys()]);
    const w = deps.ranker.semanticWeight;
    return new Map([...ids].map((id) => [id, w * (cos.get(id) ?? 0) + (1 - w) * (k.get(id) ?? 0)]));
  }

  async function rank(tenantId: string, focusIds: string[], mode: 'keyword' | 'semantic' | 'hybrid') {
    // Unknown ids and other tenants' ids are ignored alike (nothing tells them apart).
    const focus = focusIds.length > 0 ? await deps.nodes(tenantId, [...new Set(focusIds)]) : [];
    const focusIdSet = new Set(focus.map((n) => n.id));
    const titleOf = new Map(focus.map((n) => [n.id, n.title]));

    const proximity = new Map<string, { weight: number; reason: string }>();
    for (const link of focus.length > 0 ? await deps.links(tenantId, [...focusIdSet]) : []) {
      if (focusIdSet.has(link.target_id)) continue;
      const seen = proximity.get(link.target_id);
      if (!seen || link.weight > seen.weight)
        proximity.set(link.target_id, {
          weight: link.weight,
          reason: `linked to ${quote(titleOf.get(link.source_id) ?? link.source_id)} (${link.type}, weight ${link.weight})`,
        });
    }
    const similarity = await similarToFocus(tenantId, focus, mode);
    for (const id of focusIdSet) similarity.delete(id);
    const fallback =
      focus.length === 0 || (proximity.size === 0 && similarity.size === 0)
        ? (await recentDocuments(deps.db, tenantId, CANDIDATES))
            .map((d) => d.nodeId)
            .filter((id) => !focusIdSet.has(id))
        : [];

    const ids = [...new Set([...proximity.keys(), ...similarity.keys(), ...fallback])].slice(0, 100);
    const nodes = await deps.nodes(tenantId, ids);
    const t = now().getTime();
    const candidates: Candidate[] = nodes
      .filter((n) => n.status !== 'dismissed')
      .map((node) => {
        const reasons: string[] = [];
        const near = proximity.get(node.id);
        if (near) reasons.push(near.reason);
        const sim = similarity.get(node.id) ?? 0;
        if (similarity.has(node.id)) reasons.push(`similar to the focus (${mode} similarity ${sim.toFixed(2)})`);
        const validated = node.status === 'validated' ? 1 : 0;
        if (validated) reasons.push('validated');
        const days = Math.max(0, (t - Date.parse(node.updated_at)) / 86_400_000);
        const recency = 0.5 ** (days / HALF_LIFE_DAYS);
        reasons.push(days < 1 ? 'updated today' : `updated ${Math.round(days)} days ago`);
        const score =
          CONTEXT_WEIGHTS.proximity * (near?.weight ?? 0) +
          CONTEXT_WEIGHTS.similarity * sim +
          CONTEXT_WEIGHTS.validated * validated +
          CONTEXT_WEIGHTS.recency * recency;
        return { node, score, reasons, words: wordsOf(node) };
      })
      .sort((a, b) => b.score - a.score || (a.node.id < b.node.id ? -1 : 1));
    return diversify(candidates, CONTEXT_LIMIT).map((c) => ({
      id: c.node.id,
      title: c.node.title,
      summary: c.node.summary,
      status: c.node.status,
      updated_at: c.node.updated_at,
      score: Math.round(c.score * 1e6) / 1e6,
      reasons: c.reasons,
    }));
  }

  return { rank };
}
export type ContextRanker = ReturnType<typeof createContextRanker>;
