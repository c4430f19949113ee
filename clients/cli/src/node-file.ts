import matter from 'gray-matter';
import type { Node } from '@kg/sdk';

/** The fields of a node a markdown file with front matter can carry. */
export interface NodeFields {
  title?: string | undefined;
  summary?: string | undefined;
  tags?: string[] | undefined;
  status?: 'raw' | 'validated' | 'dismissed' | undefined;
  content: string;
}

const STATUSES = new Set(['raw', 'validated', 'dismissed']);

/** Front matter `tags`: a YAML list, or one string of words split on commas and spaces; `#` dropped. */
export function tagsFrom(value: unknown): string[] | undefined {
  if (value === undefined || value === null) return undefined;
  const list = Array.isArray(value) ? value : String(value).split(/[,\s]+/);
  const tags = list.map((t) => String(t).trim().replace(/^#/, '')).filter((t) => t.length > 0 && t.length <= 64);
  return [...new Set(tags)];
}

/** Reads `---` front matter (title, summary or description, tags, status) and the markdown body. */
export function parseNodeFile(text: string): NodeFields & { data: Record<string, unknown> } {
  // gray-matter caches by input string; a copy of the options object disables that (the data would be shared).
  const parsed = matter(text, {});
  const data = parsed.data as Record<string, unknown>;
  const str = (v: unknown) => (typeof v === 'string' ? v : v === undefined || v === null ? undefined : String(v));
  const status = str(data['status']);
  return {
    data,
    title: str(data['title'])?.trim() || undefined,
    summary: str(data['summary'] ?? data['description']),
    tags: tagsFrom(data['tags']),
    status: status && STATUSES.has(status) ? (status as NodeFields['status']) : undefined,
    content: parsed.content.replace(/^\r?\n/, ''),
  };
}

/** A node as markdown with front matter, the form `kg nodes edit` opens and `kg nodes create --file` reads. */
export function nodeToFile(node: Pick<Node, 'title' | 'summary' | 'tags' | 'status' | 'body_markdown'>): string {
  return matter.stringify(`\n${node.body_markdown}`, {
    title: node.title,
    summary: node.summary,
    tags: node.tags,
    status: node.status,
  });
}

/** The first `# heading`, else the first non-empty line, as a title. */
export function titleFromBody(content: string): string | undefined {
  const heading = /^#\s+(.+)$/m.exec(content)?.[1];
  const first = heading ?? content.split('\n').find((l) => l.trim());
  return first?.trim().slice(0, 200) || undefined;
}
