import { McpError, ErrorCode } from '@modelcontextprotocol/sdk/types.js';
import { ResourceTemplate, type McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { ok as data } from '@kg/sdk';
import type { ApiFor } from './api.ts';
import { describeError } from './errors.ts';
import { nodeToMarkdown } from './markdown.ts';

/** How many nodes resources/list names (the newest); the rest are reachable through search_nodes. */
export const LISTED_NODES = 100;

/** Nodes as resources: `kg://nodes/{id}`, read as markdown, listed newest first. */
export function registerNodeResources(server: McpServer, apiFor: ApiFor): void {
  server.registerResource(
    'node',
    new ResourceTemplate('kg://nodes/{id}', {
      list: async (extra) => {
        try {
          const query = { per_page: LISTED_NODES };
          const page = await data(apiFor(extra).api.GET('/nodes', { params: { query } }));
          return {
            resources: page.data.map((n) => ({
              uri: `kg://nodes/${n.id}`,
              name: n.title,
              ...(n.summary ? { description: n.summary.slice(0, 300) } : {}),
              mimeType: 'text/markdown',
            })),
          };
        } catch (err) {
          throw new McpError(ErrorCode.InternalError, describeError(err));
        }
      },
    }),
    {
      title: 'Knowledge-graph node',
      description: `A node as markdown (front matter, title, summary, body). The list names the ${LISTED_NODES} newest nodes.`,
      mimeType: 'text/markdown',
    },
    async (uri, { id }, extra) => {
      const nodeId = Array.isArray(id) ? id[0] : id;
      try {
        const node = await data(apiFor(extra).api.GET('/nodes/{id}', { params: { path: { id: nodeId ?? '' } } }));
        return { contents: [{ uri: uri.href, mimeType: 'text/markdown', text: nodeToMarkdown(node) }] };
      } catch (err) {
        throw new McpError(ErrorCode.InvalidParams, describeError(err));
      }
    },
  );
}
