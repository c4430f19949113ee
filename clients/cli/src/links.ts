import { ok } from '@kg/sdk';
import { kg } from './context.ts';

export interface LinkSpec {
  target_id: string;
  type: string;
  weight: number;
}

/**
 * A node's links with their types and weights (PATCH /nodes/:id/links replaces them all, so
 * adding one means sending the others too). Read from /graph/neighbors (out), every page.
 */
export async function currentLinks(id: string): Promise<LinkSpec[]> {
  const links: LinkSpec[] = [];
  let cursor: string | undefined;
  do {
    const view = await ok(
      kg().api.GET('/graph/neighbors/{id}', {
        params: { path: { id }, query: { direction: 'out', limit: 200, ...(cursor ? { cursor } : {}) } },
      }),
    );
    for (const e of view.edges) {
      const target = e.source === id ? e.target : e.source;
      links.push({ target_id: target, type: e.link_type, weight: e.weight });
    }
    cursor = view.next_cursor ?? undefined;
  } while (cursor);
  return links;
}
