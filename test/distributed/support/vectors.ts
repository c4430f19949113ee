import { inject } from 'vitest';
import type { Res } from '../../e2e/support/client';

export type SearchPage = { data: Array<{ id: string; title: string }>; total: number; fallback?: 'keyword' };

/** GET on the public API of one gateway of the cluster (a replica's too), as the e2e client does on the main one. */
export async function getAt<T = SearchPage>(gatewayUrl: string, path: string, auth: string): Promise<Res<T>> {
  const res = await fetch(`${gatewayUrl}/api/v1${path}`, { headers: { authorization: auth } });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    // not JSON: keep the text
  }
  return { status: res.status, headers: res.headers, body: body as T };
}

/** `GET /nodes?mode=…&query=…` on a gateway; 50 hits a page. */
export const searchAt = (gatewayUrl: string, auth: string, mode: 'semantic' | 'hybrid' | 'keyword', query: string) =>
  getAt(gatewayUrl, `/nodes?mode=${mode}&per_page=50&query=${encodeURIComponent(query)}`, auth);

/** A service's or gateway's `/readyz`: its status and body. */
export async function readyz(
  baseUrl: string,
): Promise<{ status: number; body: { status: string; degraded?: string[] } }> {
  const res = await fetch(`${baseUrl}/readyz`, { signal: AbortSignal.timeout(5000) });
  return { status: res.status, body: (await res.json()) as { status: string; degraded?: string[] } };
}

async function qdrant<T>(path: string, body?: unknown): Promise<T> {
  const url = inject('qdrantUrl');
  if (!url) throw new Error('the cluster runs search on the in-process index, not on Qdrant');
  const res = await fetch(`${url}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    signal: AbortSignal.timeout(10_000),
  });
  if (!res.ok) throw new Error(`Qdrant ${path}: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { result: T }).result;
}

/**
 * The points a tenant has in Qdrant, counted exactly by Qdrant's count API with the tenant
 * filter, over every node collection (`kg_nodes_…`, one per embedding model; a fresh tenant has
 * points in the current model's only).
 */
export async function qdrantPoints(tenantId: string): Promise<number> {
  const { collections } = await qdrant<{ collections: Array<{ name: string }> }>('/collections');
  let total = 0;
  for (const { name } of collections.filter((c) => c.name.startsWith('kg_nodes_'))) {
    const { count } = await qdrant<{ count: number }>(`/collections/${name}/points/count`, {
      filter: { must: [{ key: 'tenant_id', match: { value: tenantId } }] },
      exact: true,
    });
    total += count;
  }
  return total;
}
