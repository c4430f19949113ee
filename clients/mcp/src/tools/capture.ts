import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { ok as data, type Schemas } from '@kg/sdk';
import type { ApiFor } from '../api.ts';
import { guarded } from '../errors.ts';
import { ok, toolError } from '../result.ts';

const TITLE_FROM_TEXT = 120;

export interface CaptureArgs {
  kind: 'note' | 'url' | 'highlight';
  title?: string | undefined;
  text?: string | undefined;
  url?: string | undefined;
  why?: string | undefined;
  content_type?: CaptureInput['content_type'] | undefined;
}

/** A title from the first non-blank line of a text, cut at a word near 120 characters. */
export function titleFrom(text: string): string {
  const line = text.split('\n').find((l) => l.trim()) ?? '';
  const clean = line.trim().replace(/^#+\s*/, '');
  if (clean.length <= TITLE_FROM_TEXT) return clean;
  const cut = clean.slice(0, TITLE_FROM_TEXT);
  const space = cut.lastIndexOf(' ');
  return (space > 60 ? cut.slice(0, space) : cut) + '…';
}

type CaptureInput = Schemas['CreateCaptureInput'];

/** The POST /captures body for a capture tool call, or the message saying what is missing. */
export function captureBody(a: CaptureArgs): { body: CaptureInput } | { error: string } {
  const text = a.text?.trim() ? a.text : undefined;
  const common = { source: 'mcp' as const, ...(a.why ? { why: a.why } : {}) };
  if (a.kind === 'note') {
    if (!text) return { error: 'A note needs `text`.' };
    return { body: { ...common, title: a.title ?? titleFrom(text), content_type: 'note', raw_content: text } };
  }
  if (!a.url) return { error: `A ${a.kind} capture needs \`url\`.` };
  if (a.kind === 'highlight' && !text) return { error: 'A highlight needs `text` (the highlighted passage).' };
  return {
    body: {
      ...common,
      title: a.title ?? (text ? titleFrom(text) : a.url.slice(0, 500)),
      url: a.url,
      content_type: a.content_type ?? 'article',
      ...(a.kind === 'highlight' ? { selected_text: text } : {}),
    },
  };
}

/** capture: a note, a URL or a highlight, queued for processing into a node (source `mcp`). */
export function registerCaptureTool(server: McpServer, apiFor: ApiFor): void {
  server.registerTool(
    'capture',
    {
      title: 'Capture',
      description:
        'Files something for the knowledge graph to process into a node in the background: a note (text), ' +
        'a web page (url, with why it matters) or a highlight (url and the highlighted text). Answers the ' +
        'capture record (status pending; node_ids fill in once processed). For a finished note with a known ' +
        'title and links, create_node is direct.',
      inputSchema: {
        kind: z.enum(['note', 'url', 'highlight']).describe('note: text; url: a page; highlight: a passage of a page'),
        text: z
          .string()
          .max(100_000)
          .optional()
          .describe('The note (markdown), or the highlighted passage; required for note and highlight'),
        url: z
          .string()
          .max(2048)
          .regex(/^https?:\/\/\S+$/, 'must be an http:// or https:// URL')
          .optional()
          .describe('The page (http or https); required for url and highlight'),
        title: z.string().min(1).max(500).optional().describe('Title; default: the first line of the text, or the URL'),
        why: z.string().max(5000).optional().describe('Why this matters, in a sentence or two'),
        content_type: z
          .enum(['article', 'tweet', 'video', 'repo', 'pdf', 'audio', 'image'])
          .optional()
          .describe('What the URL holds (default article)'),
      },
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    },
    guarded(async (args, extra) => {
      const built = captureBody(args);
      if ('error' in built) return toolError(built.error);
      return ok(await data(apiFor(extra).api.POST('/captures', { body: built.body })));
    }),
  );
}
