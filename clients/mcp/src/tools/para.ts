import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { ok as data } from '@kg/sdk';
import type { ApiFor } from '../api.ts';
import { guarded } from '../errors.ts';
import { ok, toolError } from '../result.ts';
import { nodeId, paraItemId } from './fields.ts';

/** The node's PARA items after the change, in assignment order (archived links kept unless removed). */
export function nextAssignments(current: string[], ids: string[], mode: 'add' | 'remove' | 'replace'): string[] {
  if (mode === 'replace') return [...new Set(ids)];
  if (mode === 'remove') return current.filter((id) => !ids.includes(id));
  return [...new Set([...current, ...ids])];
}

/** para_tree and assign_para. */
export function registerParaTools(server: McpServer, apiFor: ApiFor): void {
  server.registerTool(
    'para_tree',
    {
      title: 'PARA tree',
      description:
        "The tenant's PARA items (Projects, Areas, Resources; archived and completed ones too, with their " +
        'status), grouped by category in PARA order. Use the ids with assign_para, create_node or search_nodes.',
      inputSchema: {},
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    guarded(async (_args, extra) => ok(await data(apiFor(extra).api.GET('/para/tree')))),
  );

  server.registerTool(
    'assign_para',
    {
      title: 'Assign a node to PARA items',
      description:
        'Changes which PARA items a node belongs to: add (default) keeps the current items and adds these, ' +
        'remove takes these away, replace sets exactly these. New items must not be archived. Answers the ' +
        'node with para_item_ids and para_assignments (who assigned each, and whether it is active).',
      inputSchema: {
        node_id: nodeId,
        para_item_ids: z.array(paraItemId).max(32).describe('PARA item ids (see para_tree)'),
        mode: z.enum(['add', 'remove', 'replace']).default('add').describe('add (default), remove or replace'),
      },
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    },
    guarded(async ({ node_id, para_item_ids, mode }, extra) => {
      if (mode !== 'replace' && para_item_ids.length === 0) return toolError('Nothing to do: give para_item_ids.');
      const { api } = apiFor(extra);
      const path = { id: node_id };
      const node = await data(api.GET('/nodes/{id}', { params: { path } }));
      const next = nextAssignments(node.para_item_ids, para_item_ids, mode);
      return ok(await data(api.PATCH('/nodes/{id}', { params: { path }, body: { para_item_ids: next } })));
    }),
  );
}
