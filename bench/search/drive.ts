import { summarize, type Summary } from '../graph/stats';

export interface Api {
  api: string;
  headers: Record<string, string>;
}

export type Mode = 'keyword' | 'semantic' | 'hybrid';

/** fetch, once more after a connection reset (a kept-alive socket the loaded server closed meanwhile). */
async function request(url: string, init: RequestInit): Promise<Response> {
  try {
    return await fetch(url, init);
  } catch {
    return fetch(url, init);
  }
}

async function search(a: Api, mode: Mode, query: string, perPage = 20): Promise<string[]> {
  const res = await request(`${a.api}/nodes?mode=${mode}&per_page=${perPage}&query=${encodeURIComponent(query)}`, {
    headers: a.headers,
  });
  if (!res.ok) throw new Error(`GET /nodes ${mode}: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { data: Array<{ id: string }> }).data.map((n) => n.id);
}

/**
 * `clients` concurrent clients, each sending its share of `queries` one after another;
 * per-request milliseconds (client side: HTTP included) and requests per second.
 */
export async function load(a: Api, mode: Mode, queries: string[], clients: number) {
  const samples: number[] = [];
  let hits = 0;
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (next < queries.length) {
        const q = queries[next++]!;
        const t = performance.now();
        const page = await search(a, mode, q);
        if (page.length > 0) hits += 1;
        samples.push(performance.now() - t);
      }
    }),
  );
  const seconds = (performance.now() - t0) / 1000;
  return { ...summarize(samples), rps: queries.length / seconds, answered: hits / queries.length };
}

/** Each query's first page of `mode=semantic` (ids in rank order), one query after another. */
export async function semanticPages(a: Api, queries: string[]): Promise<string[][]> {
  const pages: string[][] = [];
  for (const q of queries) pages.push(await search(a, 'semantic', q));
  return pages;
}

/**
 * Freshness lag: for each of `count` new nodes, the time from POST /nodes answering 201 to the
 * node being on the first page of a semantic search for its own text (polled back to back).
 */
export async function freshness(a: Api, count: number, tag: string): Promise<Summary> {
  const samples: number[] = [];
  for (let i = 0; i < count; i += 1) {
    const title = `Freshness probe ${tag} ${i}: tidal glacier calving measured by a ${i % 2 ? 'drone' : 'buoy'}`;
    const content = `Observation ${i} of ${tag}: the ice front retreated while sea temperature rose; sensors logged sound bursts.`;
    const res = await fetch(`${a.api}/nodes`, {
      method: 'POST',
      headers: { ...a.headers, 'content-type': 'application/json' },
      body: JSON.stringify({ title, content }),
    });
    if (res.status !== 201) throw new Error(`POST /nodes: ${res.status}`);
    const written = performance.now();
    const id = ((await res.json()) as { id: string }).id;
    for (;;) {
      if ((await search(a, 'semantic', `${title}. ${content}`, 20)).includes(id)) break;
      if (performance.now() - written > 60_000) throw new Error('node not found within 60 s');
    }
    samples.push(performance.now() - written);
  }
  return summarize(samples);
}
