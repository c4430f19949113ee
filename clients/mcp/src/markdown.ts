/** The fields of a node that its markdown rendering shows (a subset of the API's Node). */
export interface NodeForMarkdown {
  id: string;
  title: string;
  summary: string;
  body_markdown: string;
  tags: string[];
  status: string;
  para_item_ids: string[];
  created_at: string;
  updated_at: string;
}

/** YAML scalar: plain when safe, else double-quoted JSON (valid YAML). */
function scalar(value: string): string {
  return /^[\w@./:+-][\w@./:+ -]*$/.test(value) && !/:\s|\s$/.test(value) ? value : JSON.stringify(value);
}

/**
 * A node as a markdown document: front matter (id, status, tags, PARA items, dates), the
 * title as a heading, the summary as a quote, then the body as stored.
 */
export function nodeToMarkdown(node: NodeForMarkdown): string {
  const front = [
    '---',
    `id: ${node.id}`,
    `status: ${node.status}`,
    `tags: [${node.tags.map(scalar).join(', ')}]`,
    `para_item_ids: [${node.para_item_ids.join(', ')}]`,
    `created_at: ${node.created_at}`,
    `updated_at: ${node.updated_at}`,
    '---',
  ];
  const parts = [front.join('\n'), `# ${node.title}`];
  if (node.summary.trim()) parts.push(node.summary.trim().replace(/^/gm, '> '));
  if (node.body_markdown.trim()) parts.push(node.body_markdown.trimEnd());
  return parts.join('\n\n') + '\n';
}
