import type { graphApi, Identity } from '@kg/contracts';
import type { ServiceHandle } from '@kg/trpc';

export interface ScoringItem {
  id: string;
  /** Label and description. */
  text: string;
}

export interface ScoredPage {
  /** Candidates after the cursor, in id order, each with its best item (null: none scores) and score in [0, 1). */
  nodes: Array<{ id: string; para_item_id: string | null; score: number }>;
  next: string | null;
}

/**
 * The scorer port: how orphan nodes are scored against PARA items. Today the keyword
 * engine of the graph service (Postgres full-text rank); embeddings (the search issue)
 * plug in as another implementation of the same port.
 */
export interface OrphanScorer {
  readonly method: string;
  count(identity: Identity): Promise<number>;
  page(identity: Identity, items: ScoringItem[], after: string | null, limit: number): Promise<ScoredPage>;
}

/** Items per scoring call (the graph contract's bound); more are scored in chunks and merged. */
const ITEMS_PER_CALL = 500;

/** Keyword scoring: the graph service ranks each candidate's search vector against each item's text. */
export function keywordScorer(graph: ServiceHandle<typeof graphApi>): OrphanScorer {
  return {
    method: 'keyword (Postgres ts_rank_cd, normalization 32)',
    count: async (identity) => (await graph.as(identity).reclassify.count({})).count,
    async page(identity, items, after, limit) {
      let merged: ScoredPage | null = null;
      for (let i = 0; i < items.length; i += ITEMS_PER_CALL) {
        const page = await graph
          .as(identity)
          .reclassify.orphans({ after, limit, items: items.slice(i, i + ITEMS_PER_CALL) });
        if (!merged) merged = page;
        else
          merged.nodes = merged.nodes.map((n, k) => {
            const other = page.nodes[k]!;
            return other.score > n.score ? other : n;
          });
      }
      return merged ?? { nodes: [], next: null };
    },
  };
}
