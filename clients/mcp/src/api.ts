import type { KgClient } from '@kg/sdk';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';

/** What a tool or resource handler receives from the MCP SDK besides its arguments. */
export type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/**
 * The API client acting for the caller of one request: over stdio the process's own session
 * (SVC_TOKEN, or the stored login refreshed as needed); over HTTP the caller's own
 * Authorization header, passed through.
 */
export type ApiFor = (extra: Extra) => KgClient;
