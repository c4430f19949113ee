import { ok } from '@kg/sdk';
import { kg } from './context.ts';
import { Failure } from './exit-codes.ts';

export interface LinkSpec {
  target_id: string;
  type: string;
  weight: number;
}

/**
 * A node's links with their types and weights (PATCH /nodes/:id/links replaces them all, so
 * adding one means sending the others too). Read from /graph/neighbors (out), every page;
 * a link to a dismissed node (which the graph views leave out) stops the command instead of
 * being dropped.
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
  // The graph views leave dismissed neighbours out; /related lists them (without weights).
  // Rather than drop such a link, or guess its weight, say so.
  const { nodes } = await ok(kg().api.GET('/nodes/{id}/related', { params: { path: { id }, query: { limit: 500 } } }));
  const known = new Set(links.map((l) => l.target_id));
  const hidden = nodes.filter((n) => !known.has(n.id));
  if (hidden.length)
    throw new Failure(
      `${id} links to dismissed node(s) ${hidden.map((n) => n.id).join(', ')}, whose link weights cannot be read; ` +
        'restore them first, or give every link with --replace',
    );
  return links;
}
