import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { ApiFor } from './api.ts';
import { registerNodeResources } from './resources.ts';
import { registerCaptureTool } from './tools/capture.ts';
import { registerLinkTools } from './tools/links.ts';
import { registerNodeTools } from './tools/nodes.ts';
import { registerParaTools } from './tools/para.ts';
import { registerSearchTools } from './tools/search.ts';
import { VERSION } from './version.ts';

const INSTRUCTIONS =
  'Tools over a personal knowledge graph: nodes (notes with a markdown body, tags, a status) joined by typed, ' +
  'weighted links and filed under PARA items (Projects, Areas, Resources). Start with search_nodes or ' +
  'get_context, read with get_node, write with create_node, update_node, link_nodes and assign_para, and file ' +
  'raw material with capture. Nodes are also resources at kg://nodes/{id} (markdown).';

/** One MCP server (one per session over HTTP): every tool and resource, acting through `apiFor`. */
export function createKgServer(apiFor: ApiFor): McpServer {
  const server = new McpServer({ name: 'kg-mcp', version: VERSION }, { instructions: INSTRUCTIONS });
  registerSearchTools(server, apiFor);
  registerNodeTools(server, apiFor);
  registerLinkTools(server, apiFor);
  registerCaptureTool(server, apiFor);
  registerParaTools(server, apiFor);
  registerNodeResources(server, apiFor);
  return server;
}
