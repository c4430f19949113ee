import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '@kg/logger';
import { AppError, searchApi } from '@kg/contracts';
import { connectService, defineRouter } from '@kg/trpc';
import { fakePeers, startTestGateway } from '../testing';
import type { GatewayPeers } from '../peers';

const tenant = 'tnt_01jd8x6q1bf5r3v2m9w7k4t0za';
const node = { id: 'nod_1', title: 'Sourdough' };
const unused = (async () => {
  throw new Error('not used by this test');
}) as never;

/**
 * The search service as the gateway reaches it (the real tRPC transport and error formatter),
 * answering GET /nodes' search with `answer`: as the search service does when its vector index
 * is down (semantic: the `unavailable` AppError of @kg/vectors; hybrid: keyword alone, flagged).
 */
function peersWith(
  answer: () => Promise<{ hits: { id: string; score: number }[]; total: number; fallback?: 'keyword' }>,
) {
  const router = defineRouter(searchApi, {
    info: unused,
    documents: { get: unused, count: unused },
    nodes: { search: answer },
    links: { suggest: unused, similar: unused },
    context: { rank: unused },
    indexing: { status: unused },
  });
  const search = connectService('gateway', 'search', searchApi, {
    kind: 'local',
    router,
    logger: createLogger('test', 'silent'),
  });
  const rest = fakePeers({
    auth: {
      apiKeys: {
        verify: async () => ({ tenantId: tenant, subject: 'usr_x', credential: { kind: 'api_key', id: 'key_x' } }),
      },
    },
    graph: { search: { nodes: async () => ({ nodes: [node] }) } },
  });
  return { ...rest, search } as GatewayPeers;
}

let gateway: Awaited<ReturnType<typeof startTestGateway>> | null = null;
afterEach(async () => {
  await gateway?.close();
  gateway = null;
});

const list = (query: string) =>
  gateway!.fetch(`/api/v1/nodes?${query}`, { headers: { authorization: 'ApiKey key_x.secret' } });

describe('GET /nodes when semantic search is unavailable', () => {
  it('semantic answers 503 problem+json with Retry-After', async () => {
    gateway = await startTestGateway({
      peers: peersWith(async () => {
        throw new AppError('unavailable', 'Semantic search is temporarily unavailable; try again shortly', {
          retryAfterSeconds: 5,
        });
      }),
    });
    const res = await list('query=sourdough&mode=semantic');
    expect(res.status).toBe(503);
    expect(res.headers.get('content-type')).toContain('application/problem+json');
    expect(res.headers.get('retry-after')).toBe('5');
    expect(await res.json()).toMatchObject({
      status: 503,
      detail: 'Semantic search is temporarily unavailable; try again shortly',
    });
    expect(gateway.lines.filter((l) => l.level >= 50)).toEqual([]);
  });

  it('hybrid answered by keyword alone says so: the fallback field and the KG-Search-Fallback header', async () => {
    gateway = await startTestGateway({
      peers: peersWith(async () => ({ hits: [{ id: node.id, score: 3 }], total: 1, fallback: 'keyword' })),
    });
    const res = await list('query=sourdough');
    expect(res.status).toBe(200);
    expect(res.headers.get('kg-search-fallback')).toBe('keyword');
    expect(await res.json()).toEqual({ data: [node], total: 1, page: 1, per_page: 20, fallback: 'keyword' });
  });

  it('a hybrid answer with both sides has neither', async () => {
    gateway = await startTestGateway({
      peers: peersWith(async () => ({ hits: [{ id: node.id, score: 0.9 }], total: 1 })),
    });
    const res = await list('query=sourdough');
    expect(res.status).toBe(200);
    expect(res.headers.get('kg-search-fallback')).toBeNull();
    expect(await res.json()).toEqual({ data: [node], total: 1, page: 1, per_page: 20 });
  });
});
