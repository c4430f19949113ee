import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { parseNodeFile } from '../node-file.ts';
import { frontMatterLinks, wikiLinks } from './wiki-links.ts';

/** One markdown note of a vault, read as a node. */
export interface VaultNote {
  /** Path inside the vault, with forward slashes (`Projects/Essay.md`). */
  file: string;
  /** The note's name: the file name without `.md`, which wiki links use. */
  name: string;
  title: string;
  content: string;
  summary: string | undefined;
  tags: string[] | undefined;
  status: 'raw' | 'validated' | 'dismissed' | undefined;
  /** `kg_id` from the front matter (written by `kg export`): the node this note is. */
  kgId: string | undefined;
  aliases: string[];
  /** Targets of its wiki links (body and front matter `links`), unresolved. */
  links: string[];
}

/** Every `.md` file under `root`, skipping hidden folders (`.obsidian`, `.trash`, `.git`) and node_modules. */
export async function listMarkdown(root: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (dir: string) => {
    const entries = await readdir(dir, { withFileTypes: true });
    for (const e of entries.sort((a, b) => a.name.localeCompare(b.name))) {
      if (e.name.startsWith('.') || e.name === 'node_modules') continue;
      const full = path.join(dir, e.name);
      if (e.isDirectory()) await walk(full);
      else if (e.isFile() && /\.md$/i.test(e.name)) out.push(path.relative(root, full).split(path.sep).join('/'));
    }
  };
  await walk(root);
  return out;
}

const strings = (v: unknown): string[] =>
  (Array.isArray(v) ? v : typeof v === 'string' ? [v] : []).map((s) => String(s).trim()).filter(Boolean);

export async function readNote(root: string, file: string): Promise<VaultNote> {
  const text = await readFile(path.join(root, file), 'utf8');
  const parsed = parseNodeFile(text, file);
  const name = path.posix.basename(file).replace(/\.md$/i, '');
  const kgId = typeof parsed.data['kg_id'] === 'string' ? parsed.data['kg_id'] : undefined;
  return {
    file,
    name,
    title: parsed.title ?? name,
    content: parsed.content,
    summary: parsed.summary,
    tags: parsed.tags?.slice(0, 64),
    status: parsed.status,
    kgId,
    aliases: strings(parsed.data['aliases'] ?? parsed.data['alias']),
    links: [...new Set([...wikiLinks(parsed.content), ...frontMatterLinks(parsed.data['links'])])],
  };
}

/**
 * Resolves wiki-link targets to notes the way Obsidian does for unique names: by path inside
 * the vault (`Projects/Essay`), else by file name, else by alias, all case-insensitively.
 */
export function linkResolver(notes: VaultNote[]): (target: string) => VaultNote | undefined {
  const byPath = new Map<string, VaultNote>();
  const byName = new Map<string, VaultNote>();
  const byAlias = new Map<string, VaultNote>();
  for (const n of notes) {
    byPath.set(n.file.replace(/\.md$/i, '').toLowerCase(), n);
    if (!byName.has(n.name.toLowerCase())) byName.set(n.name.toLowerCase(), n);
    for (const a of n.aliases) if (!byAlias.has(a.toLowerCase())) byAlias.set(a.toLowerCase(), n);
  }
  return (target) => {
    const key = target.toLowerCase().replace(/^\/+/, '');
    return byPath.get(key) ?? byName.get(key) ?? byAlias.get(key);
  };
}
