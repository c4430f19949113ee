import { api } from './client';

type Page = { data: Array<{ id: string }>; total: number; page: number; per_page: number };

/**
 * Waits until a node's current version is searchable by meaning: the search service embeds
 * off the write path (docs/API.md "Semantic search" gives the freshness bound), so tests poll.
 * `query` must find the node semantically once it is indexed; `extra` adds filters.
 */
export async function waitIndexed(auth: string, nodeId: string, query: string, extra = '', timeoutMs = 30_000) {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const res = await api<Page>('GET', `/nodes?mode=semantic&per_page=100&query=${encodeURIComponent(query)}${extra}`, {
      auth,
    });
    if (res.status === 200 && res.body.data.some((n) => n.id === nodeId)) return;
    if (Date.now() > until) throw new Error(`node ${nodeId} not indexed after ${timeoutMs} ms (last ${res.status})`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
