import { parseDocument, stringify, visit } from 'yaml';
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

/** Front matter the CLI will not read, with the file it came from (`notes/evil.md: …`). */
export class FrontMatterError extends Error {
  override name = 'FrontMatterError';
  readonly file: string;
  /** What is wrong, without the file name. */
  readonly reason: string;
  constructor(file: string, reason: string) {
    super(`${file}: ${reason}`);
    this.file = file;
    this.reason = reason;
  }
}

/** The explicit YAML tags of plain data (the core schema); any other (`!!js/function`, `!!binary`…) is refused. */
const PLAIN_TAGS = new Set(['str', 'int', 'float', 'bool', 'null', 'map', 'seq'].map((t) => `tag:yaml.org,2002:${t}`));
const shortTag = (tag: string) => tag.replace(/^tag:yaml\.org,2002:/, '!!');
/** An alias may stand for a whole collection: more than this many is an expansion bomb, not a note. */
const MAX_ALIASES = 100;

/** `---` (or `---yaml`) on the first line, then the front matter, then a line of exactly `---` or `...`. */
const OPENING = /^---([^\r\n]*)\r?\n/;
const CLOSING = /^(?:---|\.\.\.)[ \t]*$/m;

/**
 * Splits `text` into its front matter (parsed as YAML, the core schema, never code) and its
 * body. Front matter in another language (`---js`, `---coffee`, `---json`…), a YAML tag beyond
 * plain data, too many aliases or invalid YAML throw a {@link FrontMatterError} naming `file`.
 * Text without a closed front matter block is all body.
 */
export function readFrontMatter(text: string, file: string): { data: Record<string, unknown>; content: string } {
  const src = text.replace(/^\ufeff/, '');
  const open = OPENING.exec(src);
  if (!open || open[1]!.startsWith('-')) return { data: {}, content: text };
  const rest = src.slice(open[0].length);
  const close = CLOSING.exec(rest);
  if (!close) return { data: {}, content: text };
  const language = open[1]!.trim();
  if (language && !/^ya?ml$/i.test(language))
    throw new FrontMatterError(file, `front matter in "${language}" is refused; only YAML front matter is read`);
  const content = rest.slice(close.index + close[0].length).replace(/^\r?\n/, '');
  const doc = parseDocument(rest.slice(0, close.index), { schema: 'core', merge: false, prettyErrors: false });
  if (doc.errors.length)
    throw new FrontMatterError(file, `front matter is not valid YAML: ${doc.errors[0]!.message.split('\n')[0]}`);
  visit(doc, {
    Node(_, node) {
      if (node.tag && !PLAIN_TAGS.has(node.tag))
        throw new FrontMatterError(
          file,
          `front matter tag ${shortTag(node.tag)} is refused; only plain YAML values are read`,
        );
    },
  });
  let data: unknown;
  try {
    data = doc.toJS({ maxAliasCount: MAX_ALIASES });
  } catch (e) {
    if (e instanceof ReferenceError && /alias/i.test(e.message))
      throw new FrontMatterError(file, `front matter uses too many aliases (more than ${MAX_ALIASES} expansions)`);
    throw e;
  }
  const isMap = typeof data === 'object' && data !== null && !Array.isArray(data);
  return { data: isMap ? (data as Record<string, unknown>) : {}, content };
}

/**
 * Reads `---` front matter (title, summary or description, tags, status) and the markdown body;
 * `file` names the source in errors (see {@link readFrontMatter}).
 */
export function parseNodeFile(text: string, file = 'the file'): NodeFields & { data: Record<string, unknown> } {
  const parsed = readFrontMatter(text, file);
  const data = parsed.data;
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

/** `data` as a `---` front matter block and then `body` (plain YAML; wiki links single-quoted). */
export function withFrontMatter(body: string, data: Record<string, unknown>): string {
  const yaml = stringify(data, { singleQuote: true, lineWidth: 0 });
  return `---\n${yaml}---\n${body.endsWith('\n') ? body : `${body}\n`}`;
}

/** A node as markdown with front matter, the form `kg nodes edit` opens and `kg nodes create --file` reads. */
export function nodeToFile(node: Pick<Node, 'title' | 'summary' | 'tags' | 'status' | 'body_markdown'>): string {
  return withFrontMatter(`\n${node.body_markdown}`, {
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
