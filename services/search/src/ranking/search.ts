import { SEARCH_CANDIDATE_CAP } from '@kg/contracts';
import { isVectorIndexUnavailable, type VectorFilter, type VectorIndex } from '@kg/vectors';
import { FILTER_KEYS, nodesCollection } from '../indexing/indexer';
import type { TenantEmbedder } from '../tenant-embedder';
import { createCollectionGate, type CollectionGate, type VectorHealth } from '../vector-health';
import { fuse, SEMANTIC_WEIGHT, type Scored } from './fusion';

/**
 * Cosine floor of semantic answers: MiniLM scores unrelated short texts around 0 to 0.15 and
 * paraphrases from about 0.35 up, so 0.25 drops the unrelated tail (docs/API.md "Semantic search").
 */
export const SEMANTIC_FLOOR = 0.25;

/**
 * During an outage of the vector index, searches try it at most once per this long; the others
 * fail at once (semantic: 503; hybrid: keyword alone) rather than each wait for the index's
 * timeout when it does not answer at all.
 */
export const OUTAGE_PROBE_INTERVAL_MS = 1000;

/** Candidates each side of hybrid fusion contributes. */
export const HYBRID_SIDE_CANDIDATES = 100;

export interface SearchFilters {
  status?: string | undefined;
  para_item_id?: string | undefined;
  orphan?: boolean | undefined;
  source_capture_id?: string | undefined;
}

/** Keyword candidates from graph (`graph.search.keyword`), best first. */
export type KeywordSource = (
  tenantId: string,
  query: string,
  filters: SearchFilters,
  limit: number,
) => Promise<Scored[]>;

export interface RankerDeps {
  vectors: VectorIndex;
  embedder: TenantEmbedder;
  keyword: KeywordSource;
  /** Semantic weight of hybrid fusion (HYBRID_SEMANTIC_WEIGHT; default SEMANTIC_WEIGHT). */
  semanticWeight?: number;
  /** The nodes collection, made once (the indexer's; default: one of its own over `vectors`). */
  gate?: CollectionGate;
  /** The index's outages as the service's calls find them (vector-health.ts); none: every search tries the index. */
  health?: VectorHealth;
  /** The clock (tests). */
  now?: () => number;
}

/** A ranked answer; `fallback: 'keyword'` when hybrid answered from keyword alone (the vector index unavailable). */
export interface RankedAnswer {
  ranked: Scored[];
  fallback?: 'keyword';
}

/**
 * Vector filter: tenant, current model, and every filter of the request, pushed down to the
 * index. Its keys are FILTER_KEYS (indexing/indexer.ts), each indexed in the collection.
 */
export function vectorFilter(tenantId: string, model: string, f: SearchFilters): VectorFilter {
  return {
    tenant_id: tenantId,
    model,
    ...(f.status !== undefined ? { status: f.status } : {}),
    ...(f.para_item_id !== undefined ? { para_item_ids: f.para_item_id } : {}),
    ...(f.orphan !== undefined ? { orphan: String(f.orphan) } : {}),
    ...(f.source_capture_id !== undefined ? { source_capture_id: f.source_capture_id } : {}),
  };
}

export function createRanker(deps: RankerDeps) {
  const collection = nodesCollection(deps.embedder.model, deps.embedder.dimensions);
  const gate =
    deps.gate ?? createCollectionGate(deps.vectors, collection, deps.embedder.dimensions, { filterKeys: FILTER_KEYS });

  /** A query's vector, embedded as the tenant's interactive work (it may be refused: 429, embedder-queue.ts). */
  async function embedQuery(tenantId: string, text: string): Promise<number[]> {
    const [vector] = await deps.embedder.for(tenantId, 'interactive').embed([text], 'query');
    return Array.from(vector!);
  }

  const now = deps.now ?? Date.now;
  /** When a search last tried the vector index. */
  let lastTry = Number.NEGATIVE_INFINITY;

  /** Nodes by cosine similarity to `vector`, at or above `floor`. */
  async function similar(
    tenantId: string,
    vector: number[],
    filters: SearchFilters,
    limit: number,
    floor = SEMANTIC_FLOOR,
  ): Promise<Scored[]> {
    const outage = deps.health?.outage;
    if (outage && now() - lastTry < OUTAGE_PROBE_INTERVAL_MS) throw outage;
    lastTry = now();
    await gate.ensure();
    const hits = await deps.vectors.search(collection, {
      vector,
      limit,
      filter: vectorFilter(tenantId, deps.embedder.model, filters),
      scoreThreshold: floor,
    });
    return hits.map((h) => ({ id: h.id, score: h.score }));
  }

  async function semantic(tenantId: string, query: string, filters: SearchFilters, limit = SEARCH_CANDIDATE_CAP) {
    return similar(tenantId, await embedQuery(tenantId, query), filters, limit);
  }

  const semanticWeight = deps.semanticWeight ?? SEMANTIC_WEIGHT;

  /** Each side's top HYBRID_SIDE_CANDIDATES, as hybrid fuses them (bench/search tunes the weight on these). */
  async function hybridSides(tenantId: string, query: string, filters: SearchFilters) {
    const [keyword, sem] = await Promise.all([
      deps.keyword(tenantId, query, filters, HYBRID_SIDE_CANDIDATES),
      semantic(tenantId, query, filters, HYBRID_SIDE_CANDIDATES),
    ]);
    return { keyword, semantic: sem };
  }

  /** Fusion of each side's top HYBRID_SIDE_CANDIDATES (see ranking/fusion.ts). */
  async function hybrid(tenantId: string, query: string, filters: SearchFilters): Promise<Scored[]> {
    const sides = await hybridSides(tenantId, query, filters);
    return fuse(sides.keyword, sides.semantic, semanticWeight).slice(0, SEARCH_CANDIDATE_CAP);
  }

  /**
   * GET /nodes' ranking. Semantic lets VectorIndexUnavailableError through (503 with
   * Retry-After); hybrid, when the vector index cannot answer, answers keyword alone, in BM25
   * order, and says so (`fallback: 'keyword'`). Other failures fail either mode.
   */
  async function rank(
    tenantId: string,
    query: string,
    mode: 'semantic' | 'hybrid',
    filters: SearchFilters,
  ): Promise<RankedAnswer> {
    if (mode === 'semantic') return { ranked: await semantic(tenantId, query, filters) };
    const [keyword, sem] = await Promise.all([
      deps.keyword(tenantId, query, filters, HYBRID_SIDE_CANDIDATES),
      semantic(tenantId, query, filters, HYBRID_SIDE_CANDIDATES).catch((err: unknown) => {
        if (isVectorIndexUnavailable(err)) return null;
        throw err;
      }),
    ]);
    if (sem === null) return { ranked: keyword.slice(0, SEARCH_CANDIDATE_CAP), fallback: 'keyword' };
    return { ranked: fuse(keyword, sem, semanticWeight).slice(0, SEARCH_CANDIDATE_CAP) };
  }

  return {
    model: deps.embedder.model,
    rank,
    embedQuery,
    similar,
    semantic,
    hybrid,
    hybridSides,
    semanticWeight,
    keyword: deps.keyword,
  };
}
export type Ranker = ReturnType<typeof createRanker>;
