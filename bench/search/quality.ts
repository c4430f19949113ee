/**
 * The steps of the known-item quality run (bench/search/run.ts) that do not depend on the mode:
 * writing the items through POST /nodes, waiting for the index, the hybrid weight sweep through
 * the search service's own ranker, and the reported split through HTTP.
 */
import { decodeJwt } from 'jose';
import { createEmbedder } from '@kg/embeddings';
import type { Db } from '@kg/db';
import type { VectorIndex } from '@kg/vectors';
import { keywordSearch } from '../../services/graph/src/store/keyword';
import { createRanker } from '../../services/search/src/ranking/search';
import { directEmbedder } from '../../services/search/src/tenant-embedder';
import { fuse, SEMANTIC_WEIGHT, type Scored } from '../../services/search/src/ranking/fusion';
import { nodesCollection } from '../../services/search/src/indexing/indexer';
import { signIn } from './servers';

export interface Item {
  id: string;
  title: string;
  content: string;
  query: string;
  split: 'tuning' | 'reported';
}
export type Scores = { 'R@1': number; 'R@10': number; 'MRR@10': number };
export const MODES = ['keyword', 'semantic', 'hybrid'] as const;
export type Mode = (typeof MODES)[number];
/** Each mode's scores and per-query milliseconds on the reported split. */
export type HttpRun = Record<Mode, { scores: Scores; latency: number[] }>;
type Target = { baseUrl: string; outboxDir: string };

export function score(ranked: string[][], expected: string[]): Scores {
  let r1 = 0;
  let r10 = 0;
  let mrr = 0;
  ranked.forEach((ids, q) => {
    const rank = ids.slice(0, 10).indexOf(expected[q]!) + 1;
    if (rank > 0) {
      r10 += 1;
      mrr += 1 / rank;
      if (rank === 1) r1 += 1;
    }
  });
  const n = expected.length;
  return { 'R@1': r1 / n, 'R@10': r10 / n, 'MRR@10': mrr / n };
}

const api = (target: Target) => `${target.baseUrl}/api/v1`;

/** Writes every item with POST /nodes; our item id → the node's id, and the tenant. */
export async function writeItems(target: Target, email: string, items: Item[]) {
  const auth = await signIn(target, email);
  const tenantId = String(decodeJwt(auth.slice('Bearer '.length))['tnt']);
  const headers = { authorization: auth, 'content-type': 'application/json' };
  const nodeOf = new Map<string, string>();
  for (const i of items) {
    const res = await fetch(`${api(target)}/nodes`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ title: i.title, content: i.content }),
    });
    if (res.status !== 201) throw new Error(`POST /nodes: ${res.status} ${await res.text()}`);
    nodeOf.set(i.id, ((await res.json()) as { id: string }).id);
  }
  return { auth, tenantId, nodeOf };
}

/**
 * Seconds from now until `last` (written last) is found by semantic search for its own text.
 * Indexing is FIFO: once the last node is searchable, every node is.
 */
export async function waitIndexed(target: Target, auth: string, last: Item, nodeId: string): Promise<number> {
  const t0 = performance.now();
  const query = encodeURIComponent(`${last.title}. ${last.content}`.slice(0, 500));
  for (;;) {
    const res = await fetch(`${api(target)}/nodes?mode=semantic&per_page=100&query=${query}`, {
      headers: { authorization: auth },
    });
    if (res.ok) {
      const page = (await res.json()) as { data: Array<{ id: string }> };
      if (page.data.some((n) => n.id === nodeId)) return (performance.now() - t0) / 1000;
    }
    if (performance.now() - t0 > 1_800_000) throw new Error('the index did not catch up within 30 minutes');
    await new Promise((r) => setTimeout(r, 250));
  }
}

export const WEIGHTS = Array.from({ length: 13 }, (_, k) => Math.round((0.3 + 0.05 * k) * 100) / 100);

/**
 * The tuning split through the service's ranker (`hybridSides`: graph's BM25 statement over
 * `db`, the semantic side on `vectors`), fused by the service's `fuse` at every weight of WEIGHTS.
 */
export async function sweep(
  db: Db,
  vectors: VectorIndex,
  tenantId: string,
  tuning: Item[],
  nodeOf: Map<string, string>,
): Promise<Map<number, Scores>> {
  const queryEmbedder = await createEmbedder({ EMBEDDINGS_PROVIDER: 'local' });
  try {
    const ranker = createRanker({
      vectors,
      embedder: directEmbedder(queryEmbedder),
      keyword: async (tenant, query, _filters, limit) =>
        (await keywordSearch(db, tenant, query, {}, limit, 0)).hits,
    });
    await vectors.ensureCollection(
      nodesCollection(queryEmbedder.model, queryEmbedder.dimensions),
      queryEmbedder.dimensions,
    );
    const sides: Array<{ keyword: Scored[]; semantic: Scored[] }> = [];
    for (const q of tuning) sides.push(await ranker.hybridSides(tenantId, q.query, {}));
    const expected = tuning.map((t) => nodeOf.get(t.id)!);
    return new Map(
      WEIGHTS.map((w) => [
        w,
        score(
          sides.map((s) => fuse(s.keyword, s.semantic, w).map((h) => h.id)),
          expected,
        ),
      ]),
    );
  } finally {
    await queryEmbedder.close();
  }
}

/** The best weight: R@10, then MRR@10, then the closest to the service's default. */
export function choose(results: Map<number, Scores>): number {
  return [...results.entries()].sort(
    ([wa, a], [wb, b]) =>
      b['R@10'] - a['R@10'] ||
      b['MRR@10'] - a['MRR@10'] ||
      Math.abs(wa - SEMANTIC_WEIGHT) - Math.abs(wb - SEMANTIC_WEIGHT),
  )[0]![0];
}

/** Every mode on the reported split through HTTP, one query after another. */
export async function measureHttp(
  target: Target,
  email: string,
  reported: Item[],
  nodeOf: Map<string, string>,
): Promise<HttpRun> {
  const headers = { authorization: await signIn(target, email) };
  const run = {} as HttpRun;
  for (const mode of MODES) {
    const ranked: string[][] = [];
    const latency: number[] = [];
    for (const q of reported) {
      const a = performance.now();
      const res = await fetch(`${api(target)}/nodes?mode=${mode}&per_page=10&query=${encodeURIComponent(q.query)}`, {
        headers,
      });
      latency.push(performance.now() - a);
      if (!res.ok) throw new Error(`GET /nodes ${mode}: ${res.status} ${await res.text()}`);
      ranked.push(((await res.json()) as { data: Array<{ id: string }> }).data.map((n) => n.id));
    }
    run[mode] = {
      scores: score(
        ranked,
        reported.map((r) => nodeOf.get(r.id)!),
      ),
      latency,
    };
  }
  return run;
}
