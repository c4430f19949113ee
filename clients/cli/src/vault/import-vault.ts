import { ApiError, ok, type KgClient, type Node } from '@kg/sdk';
import { FrontMatterError } from '../node-file.ts';
import { currentLinks, type LinkSpec } from '../links.ts';
import { allNodes } from './all-nodes.ts';
import { mapPool } from './pool.ts';
import { linkResolver, listMarkdown, readNote, type VaultNote } from './read-vault.ts';

/** The link type a wiki link becomes (links are bidirectional; weight 1). */
export const WIKI_LINK_TYPE = 'references';
const CONCURRENCY = 8;

export interface ImportSummary {
  notes: number;
  created: number;
  updated: number;
  skipped: number;
  failed: Array<{ file: string; error: string }>;
  links: { total: number; unresolved: number; nodes_relinked: number };
}

export interface ImportProgress {
  phase(name: 'notes' | 'links', total: number): void;
  tick(): void;
}

const sameTags = (a: string[], b: string[]) => a.length === b.length && a.every((t, i) => t === b[i]);
const errorText = (e: unknown) =>
  e instanceof ApiError
    ? [e.title, e.detail, ...e.errors.map((f) => `${f.path}: ${f.message}`)].filter(Boolean).join(' — ')
    : e instanceof Error
      ? e.message
      : String(e);

/** What a note changes on its node: null when nothing (the node already says what the note says). */
export function noteChanges(note: VaultNote, node: Node): Record<string, unknown> | null {
  const patch: Record<string, unknown> = {};
  if (note.title !== node.title) patch['title'] = note.title;
  if (note.content.trimEnd() !== node.body_markdown.trimEnd()) patch['content'] = note.content;
  if (note.summary !== undefined && note.summary !== node.summary) patch['summary'] = note.summary;
  if (note.tags !== undefined && !sameTags(note.tags, node.tags)) patch['tags'] = note.tags;
  if (note.status !== undefined && note.status !== node.status) patch['status'] = note.status;
  return Object.keys(patch).length ? patch : null;
}

/**
 * Imports a folder of markdown notes (an Obsidian vault). A note is the node named by its
 * front matter `kg_id`, else the tenant's node with exactly its title (the oldest, if several),
 * else a new node. Wiki links between notes become `references` links, kept symmetric; links
 * to nodes outside the vault are left as they are. Running it again changes nothing.
 */
export async function importVault(kg: KgClient, root: string, progress?: ImportProgress): Promise<ImportSummary> {
  const files = await listMarkdown(root);
  const summary: ImportSummary = {
    notes: files.length,
    created: 0,
    updated: 0,
    skipped: 0,
    failed: [],
    links: { total: 0, unresolved: 0, nodes_relinked: 0 },
  };
  const notes: VaultNote[] = [];
  for (const file of files) {
    try {
      notes.push(await readNote(root, file));
    } catch (e) {
      // Front matter the CLI refuses (`---js`…) says why; the file is named beside it.
      summary.failed.push({ file, error: e instanceof FrontMatterError ? e.reason : `cannot read: ${errorText(e)}` });
    }
  }

  const existing = await allNodes(kg);
  const byId = new Map(existing.map((n) => [n.id, n]));
  const byTitle = new Map<string, Node>();
  // Newest first from the API: the last one written for a title is the oldest.
  for (const n of existing) byTitle.set(n.title, n);

  // Phase 1: one node per note.
  const nodeOf = new Map<VaultNote, { id: string; created: boolean; changed: boolean }>();
  const claimed = new Set<string>();
  const matched = new Map<VaultNote, Node>();
  for (const note of notes) {
    const node = (note.kgId ? byId.get(note.kgId) : undefined) ?? byTitle.get(note.title);
    if (node && !claimed.has(node.id)) {
      claimed.add(node.id);
      matched.set(note, node);
    }
  }
  progress?.phase('notes', notes.length);
  await mapPool(notes, CONCURRENCY, async (note) => {
    try {
      const node = matched.get(note);
      if (node) {
        const patch = noteChanges(note, node);
        if (patch) await ok(kg.api.PATCH('/nodes/{id}', { params: { path: { id: node.id } }, body: patch }));
        nodeOf.set(note, { id: node.id, created: false, changed: !!patch });
      } else {
        const created = await ok(
          kg.api.POST('/nodes', {
            body: {
              title: note.title,
              content: note.content,
              summary: note.summary ?? '',
              tags: note.tags ?? [],
              para_item_ids: [],
            },
          }),
        );
        if (note.status && note.status !== created.status)
          await ok(
            kg.api.PATCH('/nodes/{id}', { params: { path: { id: created.id } }, body: { status: note.status } }),
          );
        nodeOf.set(note, { id: created.id, created: true, changed: true });
      }
    } catch (e) {
      summary.failed.push({ file: note.file, error: errorText(e) });
    } finally {
      progress?.tick();
    }
  });

  // Phase 2: links. The wanted neighbours of a note: the notes it links to and those linking to it.
  const resolve = linkResolver(notes);
  const wanted = new Map<string, Set<string>>();
  const want = (a: string, b: string) => {
    if (!wanted.has(a)) wanted.set(a, new Set());
    wanted.get(a)!.add(b);
  };
  for (const note of notes) {
    const from = nodeOf.get(note);
    if (!from) continue;
    for (const target of note.links) {
      const to = resolve(target);
      const toNode = to && nodeOf.get(to);
      if (!toNode) {
        if (!to) summary.links.unresolved++;
        continue;
      }
      if (toNode.id === from.id) continue;
      want(from.id, toNode.id);
      want(toNode.id, from.id);
    }
  }
  const vaultIds = new Set([...nodeOf.values()].map((n) => n.id));
  summary.links.total = [...wanted.values()].reduce((s, set) => s + set.size, 0) / 2;

  // The vault links each matched node has now (fetched before any link changes, from /related).
  const entries = [...nodeOf.entries()];
  progress?.phase('links', entries.length);
  const relinked = new Set<string>();
  const current = new Map<string, Set<string>>();
  await mapPool(entries, CONCURRENCY, async ([note, n]) => {
    try {
      if (!n.created) {
        const { nodes } = await ok(
          kg.api.GET('/nodes/{id}/related', { params: { path: { id: n.id }, query: { limit: 500 } } }),
        );
        current.set(n.id, new Set(nodes.map((r) => r.id).filter((id) => vaultIds.has(id))));
      }
    } catch (e) {
      summary.failed.push({ file: note.file, error: errorText(e) });
    }
  });
  const sameSet = (a: Set<string>, b: Set<string>) => a.size === b.size && [...a].every((x) => b.has(x));
  const newIds = new Set(entries.filter(([, n]) => n.created).map(([, n]) => n.id));
  const fail = (note: VaultNote, e: unknown) => summary.failed.push({ file: note.file, error: errorText(e) });

  // New nodes: a link is one relationship seen from both ends, so a PATCH of one end makes
  // both. Only a vertex cover of the links among new nodes is sent (greedy, most links
  // first); links to existing nodes are the existing nodes' PATCHes below. The wanted sets
  // are symmetric, so these PATCHes may run at once in any order.
  const covered = new Set<string>();
  const edgeKey = (a: string, b: string) => (a < b ? `${a} ${b}` : `${b} ${a}`);
  const cover = entries
    .filter(([, n]) => n.created)
    .sort(([, a], [, b]) => (wanted.get(b.id)?.size ?? 0) - (wanted.get(a.id)?.size ?? 0))
    .filter(([, n]) => {
      const open = [...(wanted.get(n.id) ?? [])].filter((t) => newIds.has(t) && !covered.has(edgeKey(n.id, t)));
      for (const t of open) covered.add(edgeKey(n.id, t));
      return open.length > 0;
    });
  await mapPool(cover, CONCURRENCY, async ([note, n]) => {
    const target = wanted.get(n.id)!;
    try {
      await setLinks(kg, n.id, target, []);
      relinked.add(n.id);
      for (const t of target) current.get(t)?.add(n.id);
    } catch (e) {
      fail(note, e);
    } finally {
      progress?.tick();
    }
  });
  for (let i = cover.length; i < newIds.size; i++) progress?.tick();

  // Existing nodes, one at a time: each PATCH also changes the other ends, which `current`
  // follows, so a node whose links the others' PATCHes already set is left alone. Notes that
  // changed go first: a removed [[link]] is then undone from the note that lost it.
  const existingOrder = entries
    .filter(([, n]) => !n.created)
    .sort(([a, x], [b, y]) => Number(y.changed) - Number(x.changed) || a.file.localeCompare(b.file));
  for (const [note, n] of existingOrder) {
    const target = wanted.get(n.id) ?? new Set<string>();
    try {
      if (!sameSet(current.get(n.id) ?? new Set(), target)) {
        // Keep links to nodes outside the vault, and the type and weight of vault links that stay.
        const links = await currentLinks(n.id);
        await setLinks(
          kg,
          n.id,
          target,
          links.filter((l) => !vaultIds.has(l.target_id) || target.has(l.target_id)),
        );
        relinked.add(n.id);
        current.set(n.id, new Set(target));
        for (const [other, set] of current) {
          if (other === n.id) continue;
          if (target.has(other)) set.add(n.id);
          else set.delete(n.id);
        }
      }
    } catch (e) {
      fail(note, e);
    } finally {
      progress?.tick();
    }
  }
  summary.links.nodes_relinked = relinked.size;

  for (const [, n] of nodeOf) {
    if (n.created) summary.created++;
    else if (n.changed || relinked.has(n.id)) summary.updated++;
    else summary.skipped++;
  }
  return summary;
}

async function setLinks(kg: KgClient, id: string, targets: Set<string>, keep: LinkSpec[]): Promise<void> {
  const kept = new Map(keep.map((l) => [l.target_id, l]));
  for (const t of targets) if (!kept.has(t)) kept.set(t, { target_id: t, type: WIKI_LINK_TYPE, weight: 1 });
  const links = [...kept.values()].slice(0, 500);
  await ok(kg.api.PATCH('/nodes/{id}/links', { params: { path: { id } }, body: { links } }));
}
