import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { ok as data } from '@kg/sdk';
import type { ApiFor } from '../api.ts';
import { guarded } from '../errors.ts';
import { nodeToMarkdown } from '../markdown.ts';
import { ok } from '../result.ts';
import { nodeId, nodeStatus, paraItemId, tags } from './fields.ts';

/** get_node, create_node, update_node. */
export function registerNodeTools(server: McpServer, apiFor: ApiFor): void {
  server.registerTool(
    'get_node',
    {
      title: 'Get a node',
      description:
        'Reads one node of the knowledge graph by id: title, summary, markdown body, tags, status and PARA ' +
        'assignments. The first text block is the node as markdown; the structured content is the full record.',
      inputSchema: { id: nodeId },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    guarded(async ({ id }, extra) => {
      const node = await data(apiFor(extra).api.GET('/nodes/{id}', { params: { path: { id } } }));
      return ok(node, nodeToMarkdown(node));
    }),
  );

  server.registerTool(
    'create_node',
    {
      title: 'Create a node',
      description:
        'Creates a node (a note of the knowledge graph) with a title and optional markdown content, summary, ' +
        'tags and PARA items. Answers the new node with its id. To file raw material for later processing ' +
        '(a web page, a highlight), use capture instead.',
      inputSchema: {
        title: z.string().min(1).max(500).describe('Title, 1–500 characters'),
        content: z.string().max(1_000_000).optional().describe('Markdown body'),
        summary: z.string().max(10_000).optional().describe('A short summary'),
        tags: tags.optional(),
        para_item_ids: z.array(paraItemId).max(32).optional().describe('PARA items to assign (see para_tree)'),
      },
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    },
    guarded(async ({ title, content, summary, tags, para_item_ids }, extra) => {
      const body = { title, content: content ?? '', summary: summary ?? '', tags, para_item_ids: para_item_ids ?? [] };
      return ok(await data(apiFor(extra).api.POST('/nodes', { body })));
    }),
  );

  server.registerTool(
    'update_node',
    {
      title: 'Update a node',
      description:
        'Changes fields of a node; fields left out stay as they are. `content` and `tags` replace the old ' +
        'values entirely (read the node with get_node first to edit them). Set `status` to `validated` once a ' +
        'person confirmed the node, `dismissed` to hide it. PARA assignments: use assign_para.',
      inputSchema: {
        id: nodeId,
        title: z.string().min(1).max(500).optional().describe('New title'),
        content: z.string().max(1_000_000).optional().describe('New markdown body (replaces the old one)'),
        summary: z.string().max(10_000).optional().describe('New summary'),
        tags: tags.optional().describe('New tags (replace the old ones)'),
        status: nodeStatus.optional(),
      },
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    },
    guarded(async ({ id, ...body }, extra) =>
      ok(await data(apiFor(extra).api.PATCH('/nodes/{id}', { params: { path: { id } }, body }))),
    ),
  );
}
