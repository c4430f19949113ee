import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

/** A successful tool answer: the data as JSON text (for the model) and as structured content. */
export function ok(data: unknown, note?: string): CallToolResult {
  const text = JSON.stringify(data, null, 2);
  const content: CallToolResult['content'] = [{ type: 'text', text }];
  if (note) content.unshift({ type: 'text', text: note });
  return data !== null && typeof data === 'object' && !Array.isArray(data)
    ? { content, structuredContent: data as Record<string, unknown> }
    : { content };
}

/** A tool error (isError): the model sees the message and can correct its call. */
export function toolError(message: string): CallToolResult {
  return { content: [{ type: 'text', text: message }], isError: true };
}
