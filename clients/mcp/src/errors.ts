import { ApiError } from '@kg/sdk';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Extra } from './api.ts';
import { toolError } from './result.ts';

/**
 * One message for the model from an error: the API's problem (status, title, detail and each
 * field error) when it answered with one, else the SDK's own message (not signed in, cannot
 * reach the server, bad configuration). Never a stack trace.
 */
export function describeError(err: unknown): string {
  if (err instanceof ApiError) {
    const lines = [`${err.status} ${err.title}${err.detail ? `: ${err.detail}` : ''}`];
    for (const f of err.errors) lines.push(`- ${f.path}: ${f.message}`);
    return lines.join('\n');
  }
  return err instanceof Error ? err.message : String(err);
}

/** Wraps a tool handler so any failure becomes a tool error (isError) with the API's detail. */
export function guarded<A>(
  handler: (args: A, extra: Extra) => Promise<CallToolResult>,
): (args: A, extra: Extra) => Promise<CallToolResult> {
  return async (args, extra) => {
    try {
      return await handler(args, extra);
    } catch (err) {
      return toolError(describeError(err));
    }
  };
}
