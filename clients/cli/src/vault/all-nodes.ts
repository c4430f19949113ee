import { ok, type KgClient, type Node } from '@kg/sdk';
import { mapPool } from './pool.ts';

/** Every node of the tenant (GET /nodes, 100 a page; the pages after the first four at a time). */
export async function allNodes(kg: KgClient): Promise<Node[]> {
  const page = (n: number) => ok(kg.api.GET('/nodes', { params: { query: { page: n, per_page: 100 } } }));
  const first = await page(1);
  const pages = Math.ceil(first.total / 100);
  const rest = await mapPool(
    Array.from({ length: Math.max(0, pages - 1) }, (_, i) => i + 2),
    4,
    (n) => page(n),
  );
  const seen = new Map<string, Node>();
  for (const n of [first, ...rest].flatMap((p) => p.data)) seen.set(n.id, n);
  return [...seen.values()];
}
