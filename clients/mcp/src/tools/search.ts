import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { ok as data } from '@kg/sdk';
import type { ApiFor } from '../api.ts';
import { guarded } from '../errors.ts';
import { ok } from '../result.ts';
import { nodeId, nodeStatus, paraItemId, searchMode } from './fields.ts';

/** search_nodes, get_context, suggest_links. */
export function registerSearchTools(server: McpServer, apiFor: ApiFor): void {
  server.registerTool(
    'search_nodes',
    {
      title: 'Search the knowledge graph',
      description:
        'Finds nodes by text, best match first, with optional filters (status, PARA item, orphans). Answers ' +
        'one page of nodes (id, title, summary, tags, status; no body: read a node with get_node) and the total. ' +
        'Without a query, lists the newest nodes. Semantic and hybrid rank at most 200 nodes.',
      inputSchema: {
        query: z.string().max(500).optional().describe('What to look for, at most 500 characters'),
        mode: searchMode.optional(),
        status: nodeStatus.optional().describe('Only nodes with this status'),
        para_item_id: paraItemId.optional().describe('Only nodes assigned to this PARA item'),
        orphan: z.boolean().optional().describe('true: only nodes without a PARA item; false: only assigned ones'),
        page: z.number().int().min(1).max(1_000_000).optional().describe('Page number, from 1'),
        per_page: z.number().int().min(1).max(100).optional().describe('Nodes per page, 1–100 (default 20)'),
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    guarded(async ({ orphan, ...rest }, extra) => {
      const query = {
        ...rest,
        ...(orphan === undefined ? {} : { orphan: orphan ? ('true' as const) : ('false' as const) }),
      };
      const res = await data(apiFor(extra).api.GET('/nodes', { params: { query } }));
      const nodes = res.data.map(({ id, title, summary, tags, status, para_item_ids, updated_at }) => ({
        id,
        title,
        summary,
        tags,
        status,
        para_item_ids,
        updated_at,
      }));
      return ok({ data: nodes, total: res.total, page: res.page, per_page: res.per_page });
    }),
  );

  server.registerTool(
    'get_context',
    {
      title: 'Context for a session',
      description:
        'The nodes most useful as background for the current work (POST /context): given focus nodes, ' +
        'their linked and similar nodes, ranked by graph proximity, similarity, validation and recency and ' +
        'diversified, each with a score and the reasons it was chosen (at most 20). Without focus, the most ' +
        'recently updated nodes. Answers {nodes: [{id, title, summary, status, updated_at, score, reasons}]}, best first.',
      inputSchema: {
        focus_node_ids: z.array(nodeId).max(50).optional().describe('The nodes being worked on (at most 50)'),
        mode: searchMode.optional().describe('How similarity to the focus is measured (default hybrid)'),
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    guarded(async (body, extra) => ok(await data(apiFor(extra).api.POST('/context', { body })))),
  );

  server.registerTool(
    'suggest_links',
    {
      title: 'Suggest links',
      description:
        'Nodes that a text could link to (semantic similarity, at most 10, best first, each with its score). ' +
        'Pass node_id when the text is an existing node: it and the nodes it already links to are left out. ' +
        'Create the links with link_nodes.',
      inputSchema: {
        text: z.string().min(1).max(10_000).describe('The text to find linkable nodes for'),
        node_id: nodeId.optional().describe('The node the text belongs to, if any'),
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    guarded(async (query, extra) => ok(await data(apiFor(extra).api.GET('/links/suggestions', { params: { query } })))),
  );
}
