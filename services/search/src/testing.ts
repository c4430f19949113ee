import type { graphApi } from '@kg/contracts';
import type { Embedder } from '@kg/embeddings';
import type { ServiceHandle } from '@kg/trpc';
import type { IndexedNode } from './indexing/indexer';
import type { Scored } from './ranking/fusion';

/** A node as graph's `search.nodes` answers it (tests): raw, in no PARA item, made by hand. */
export const indexedNode = (id: string, title: string, extra: Partial<IndexedNode> = {}): IndexedNode => ({
  id,
  title,
  summary: '',
  body_markdown: '',
  status: 'raw',
  para_item_ids: [],
  source_capture_id: null,
  updated_at: '2026-01-01T00:00:00.000Z',
  ...extra,
});

/**
 * A deterministic embedder for unit tests only: each lower-cased word hashes to one of 256
 * dimensions (bag of words), L2-normalised. Texts sharing words are similar, others not.
 */
export function testEmbedder(model = 'test-bow-256'): Embedder & { calls: number } {
  const embedder = {
    model,
    dimensions: 256,
    calls: 0,
    async embed(texts: string[]) {
      embedder.calls += texts.length;
      return texts.map((text) => {
        const v = new Float32Array(256);
        for (const word of text.toLowerCase().match(/[a-z0-9]+/g) ?? []) {
          let h = 2166136261;
          for (const c of word) h = Math.imul(h ^ c.charCodeAt(0), 16777619);
          h = Math.imul(h ^ (h >>> 16), 0x45d9f3b);
          v[((h ^ (h >>> 16)) >>> 0) % 256]! += 1;
        }
        const norm = Math.hypot(...v);
        return norm === 0 ? v : v.map((x) => x / norm);
      });
    },
    async close() {},
  };
  return embedder;
}

/** A graph handle answering `search.nodes` from a map per tenant and `search.keyword` from a function. */
export function fakeGraph(
  nodes: Map<string, Map<string, IndexedNode>>,
  keyword: (tenantId: string, query: string, filters: { source_capture_id?: string }) => Scored[] = () => [],
): ServiceHandle<typeof graphApi> {
  return {
    service: 'graph',
    as: (identity) =>
      ({
        search: {
          nodes: async ({ ids }: { ids: string[] }) => ({
            nodes: ids.flatMap((id) => {
              const node = nodes.get(identity!.tenantId)?.get(id);
              return node ? [node] : [];
            }),
          }),
          keyword: async ({ query, filters }: { query: string; filters?: { source_capture_id?: string } }) => ({
            hits: keyword(identity!.tenantId, query, filters ?? {}),
          }),
        },
      }) as never,
  };
}
