import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { ok as data, type KgClient } from '@kg/sdk';
import type { ApiFor } from '../api.ts';
import { guarded } from '../errors.ts';
import { ok, toolError } from '../result.ts';
import { nodeId } from './fields.ts';

export interface LinkSpec {
  target_id: string;
  type: string;
  weight: number;
}
/**
 * A node's outgoing links as the API holds them. Weights come from the graph view, which
 * hides dismissed nodes; `related` lists those too (without weight), so they are kept with
 * weight 1 and counted in `unknownWeight`.
 */
export async function currentLinks(
  { api }: KgClient,
  id: string,
): Promise<{ links: LinkSpec[]; unknownWeight: number }> {
  const weights = new Map<string, LinkSpec>();
  let cursor: string | undefined;
  do {
    const query = { direction: 'out' as const, limit: 200, ...(cursor ? { cursor } : {}) };
    const page = await data(api.GET('/graph/neighbors/{id}', { params: { path: { id }, query } }));
    for (const e of page.edges) weights.set(e.target, { target_id: e.target, type: e.link_type, weight: e.weight });
    cursor = page.next_cursor ?? undefined;
  } while (cursor);
  const related = await data(api.GET('/nodes/{id}/related', { params: { path: { id }, query: { limit: 500 } } }));
  let unknownWeight = 0;
  const links = related.nodes.map((n) => {
    const known = weights.get(n.id);
    if (known) return known;
    unknownWeight++;
    return { target_id: n.id, type: n.relationship_type, weight: 1 };
  });
  return { links, unknownWeight };
}

/** The links after adding or updating `add` and removing `remove` (targets), order kept. */
export function mergeLinks(current: LinkSpec[], add: LinkSpec[], remove: string[]): LinkSpec[] {
  const byTarget = new Map(current.map((l) => [l.target_id, l]));
  for (const l of add) byTarget.set(l.target_id, l);
  for (const t of remove) byTarget.delete(t);
  return [...byTarget.values()];
}

/** link_nodes and graph_neighbors. */
export function registerLinkTools(server: McpServer, apiFor: ApiFor): void {
  server.registerTool(
    'link_nodes',
    {
      title: 'Link nodes',
      description:
        'Adds or updates typed, weighted links from one node to others, and removes links, keeping every ' +
        'other link of the node. Links are bidirectional: the target gets the same link back. Answers the ' +
        "node's links after the change, strongest first.",
      inputSchema: {
        source_id: nodeId.describe('The node the links start from'),
        links: z
          .array(
            z.object({
              target_id: nodeId,
              type: z
                .string()
                .regex(/^[a-z][a-z0-9_]{0,39}$/)
                .default('related')
                .describe('A lowercase word such as related, supports, contradicts, part_of (default related)'),
              weight: z.number().gt(0).lte(1).default(1).describe('Strength in (0, 1], default 1'),
            }),
          )
          .max(500)
          .default([])
          .describe('Links to add, or to update when the target is already linked'),
        unlink: z.array(nodeId).max(500).default([]).describe('Targets whose link is removed'),
      },
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    },
    guarded(async ({ source_id, links, unlink }, extra) => {
      if (links.length === 0 && unlink.length === 0) return toolError('Nothing to do: give `links` or `unlink`.');
      const kg = apiFor(extra);
      const current = await currentLinks(kg, source_id);
      const next = mergeLinks(current.links, links, unlink);
      const path = { id: source_id };
      const res = await data(kg.api.PATCH('/nodes/{id}/links', { params: { path }, body: { links: next } }));
      const note = current.unknownWeight
        ? `${current.unknownWeight} link(s) to dismissed nodes were kept with weight 1 (the API does not show their weight).`
        : undefined;
      return ok(res, note);
    }),
  );

  server.registerTool(
    'graph_neighbors',
    {
      title: 'Graph neighbours',
      description:
        "A node's neighbours in the graph: each linked node (title, PARA category, connection count) and the " +
        'links (type, weight), strongest first, one page at a time. Pass next_cursor back as cursor for more ' +
        '(cursors last 15 minutes). Dismissed nodes are not listed.',
      inputSchema: {
        id: nodeId,
        direction: z
          .enum(['out', 'in', 'both'])
          .optional()
          .describe('out: links from the node; in: links to it; both (default). Links are bidirectional.'),
        limit: z.number().int().min(1).max(200).optional().describe('Links per page and direction, 1–200 (default 50)'),
        cursor: z.string().min(1).max(200).optional().describe('next_cursor of the previous page'),
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    guarded(async ({ id, ...query }, extra) =>
      ok(await data(apiFor(extra).api.GET('/graph/neighbors/{id}', { params: { path: { id }, query } }))),
    ),
  );
}
