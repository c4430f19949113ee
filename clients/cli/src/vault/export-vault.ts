import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { ok, type KgClient, type Node } from '@kg/sdk';
import { withFrontMatter } from '../node-file.ts';
import { allNodes } from './all-nodes.ts';
import { mapPool } from './pool.ts';

export interface ExportSummary {
  nodes: number;
  written: number;
  unchanged: number;
}

export interface ExportProgress {
  phase(name: 'links' | 'files', total: number): void;
  tick(): void;
}

const RESERVED = /[\\/:*?"<>|#^[\]\u0000-\u001f]/g;

/** A file name for a title: characters Obsidian or file systems refuse become `-`; at most 120 characters. */
export function fileNameFor(title: string): string {
  const base = title.replace(RESERVED, '-').replace(/\s+/g, ' ').trim().replace(/^\.+/, '').slice(0, 120).trim();
  return base || 'Untitled';
}

/**
 * Writes every node as `<title>.md`: front matter (`title`, `kg_id`, `tags`, `summary`,
 * `status`, `links` as wiki links to the other files) and the markdown body as it is. Names
 * that collide get ` (2)`, ` (3)`… in creation order, so a second export writes the same
 * files; a file whose content would not change is not written. `kg import` of the folder
 * maps each file back to its node through `kg_id`.
 */
export async function exportVault(kg: KgClient, root: string, progress?: ExportProgress): Promise<ExportSummary> {
  const nodes = (await allNodes(kg)).sort(
    (a, b) => a.created_at.localeCompare(b.created_at) || a.id.localeCompare(b.id),
  );
  const names = new Map<string, string>();
  const taken = new Set<string>();
  for (const n of nodes) {
    const base = fileNameFor(n.title);
    let name = base;
    for (let i = 2; taken.has(name.toLowerCase()); i++) name = `${base} (${i})`;
    taken.add(name.toLowerCase());
    names.set(n.id, name);
  }
  progress?.phase('links', nodes.length);
  const related = await mapPool(nodes, 8, async (n) => {
    const { nodes: linked } = await ok(
      kg.api.GET('/nodes/{id}/related', { params: { path: { id: n.id }, query: { limit: 500 } } }),
    );
    progress?.tick();
    return linked
      .map((r) => names.get(r.id))
      .filter((x): x is string => !!x)
      .sort();
  });
  await mkdir(root, { recursive: true });
  const summary: ExportSummary = { nodes: nodes.length, written: 0, unchanged: 0 };
  progress?.phase('files', nodes.length);
  await mapPool(nodes, 8, async (n: Node, i) => {
    const file = path.join(root, `${names.get(n.id)}.md`);
    const data: Record<string, unknown> = { title: n.title, kg_id: n.id, tags: n.tags, status: n.status };
    if (n.summary) data['summary'] = n.summary;
    if (related[i]!.length) data['links'] = related[i]!.map((name) => `[[${name}]]`);
    const text = withFrontMatter(n.body_markdown, data);
    const before = await readFile(file, 'utf8').catch(() => null);
    if (before === text) summary.unchanged++;
    else {
      await writeFile(file, text);
      summary.written++;
    }
    progress?.tick();
  });
  return summary;
}
