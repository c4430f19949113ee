/**
 * What a bookmark import left on its captures (`metadata.import`, docs/API.md "Imports"), read
 * by the pipeline as untrusted input: every field is validated on its own and bounded, and a
 * field that does not fit is dropped (a tag, a folder name) or taken as absent, never an error.
 * A capture whose `metadata.import` is not an object is not an imported capture.
 */
import { z } from 'zod';

/** Folder levels and tags read at most (the rest is ignored); a node holds at most 64 tags anyway. */
export const MAX_FOLDERS = 32;
export const MAX_IMPORT_TAGS = 256;
/** A folder name is kept to a PARA item's label length (200), the note to the contract's 5,000. */
export const MAX_FOLDER_CHARS = 200;
export const MAX_NOTE_CHARS = 5000;
/** What the graph service keeps of a node's tags: 64 tags of at most 64 characters, trimmed. */
export const MAX_NODE_TAGS = 64;
export const MAX_TAG_CHARS = 64;

/** Trimmed, NUL-free, cut to `max`; null when nothing is left. */
const clean = (max: number) => (value: string) => {
  const text = value.replaceAll('\0', '').trim().slice(0, max).trim();
  return text === '' ? null : text;
};

/** An array of which only the first `max` entries are read and only the strings kept, cleaned. */
const strings = (max: number, chars: number) =>
  z
    .array(z.unknown())
    .transform((list) =>
      list
        .slice(0, max)
        .flatMap((v) => (typeof v === 'string' ? [clean(chars)(v)] : []))
        .filter((v): v is string => v !== null),
    )
    .catch([]);

export const ImportMetadata = z.object({
  import_id: z.string().max(64).nullable().catch(null).default(null),
  folder: strings(MAX_FOLDERS, MAX_FOLDER_CHARS).default([]),
  tags: strings(MAX_IMPORT_TAGS, MAX_TAG_CHARS).default([]),
  added_at: z.iso
    .datetime({ offset: true })
    .transform((d) => new Date(d).toISOString())
    .nullable()
    .catch(null)
    .default(null),
  note: z
    .string()
    .transform((n) => clean(MAX_NOTE_CHARS)(n))
    .nullable()
    .catch(null)
    .default(null),
  para: z.boolean().catch(false).default(false),
});
export type ImportMetadata = z.infer<typeof ImportMetadata>;

/** The capture's import record, bounded; null when the capture was not imported (or it is not an object). */
export function importOf(metadata: Record<string, unknown> | null | undefined): ImportMetadata | null {
  const raw = metadata?.import;
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) return null;
  const parsed = ImportMetadata.safeParse(raw);
  return parsed.success ? parsed.data : null;
}

/**
 * The node's tags: the import's (folders, then the bookmark's own) first, then the ones the
 * pipeline inferred, each trimmed and cut to 64 characters as graph keeps them, a tag that
 * differs from an earlier one only in case left out (the first spelling stays), at most 64.
 */
export function mergeTags(imported: readonly string[], inferred: readonly string[]): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const raw of [...imported, ...inferred]) {
    const tag = clean(MAX_TAG_CHARS)(raw);
    if (tag === null || seen.has(tag.toLowerCase())) continue;
    seen.add(tag.toLowerCase());
    out.push(tag);
    if (out.length === MAX_NODE_TAGS) break;
  }
  return out;
}

/** The heading of the section an imported bookmark's date, folder and note add to its node's content. */
export const IMPORT_HEADING = '## Bookmark';

/**
 * The section appended to an imported node's content, so what the bookmark carried stays
 * visible on the node (nodes have no metadata field): when it was added, its folder path,
 * and its note. Empty when the import carried none of them.
 */
export function importSection(imp: ImportMetadata): string {
  const lines: string[] = [];
  if (imp.added_at) lines.push(`- Added: ${imp.added_at}`);
  if (imp.folder.length) lines.push(`- Folder: ${imp.folder.join(' / ')}`);
  if (imp.note) lines.push('', '### Note', '', imp.note);
  return lines.length ? `${IMPORT_HEADING}\n\n${lines.join('\n')}\n` : '';
}

/** The content of the node: the extracted markdown, cut so the import section always fits within `max`. */
export function nodeContent(markdown: string, imp: ImportMetadata | null, max: number): string {
  const section = imp ? importSection(imp) : '';
  if (!section) return markdown.slice(0, max);
  const body = markdown.trimEnd().slice(0, Math.max(0, max - section.length - 2));
  return body ? `${body}\n\n${section}` : section;
}

/** The PARA item an import asks for: its innermost folder, as a resource; null unless `para` and a folder. */
export function importParaItem(imp: ImportMetadata | null): { category: 'resources'; label: string } | null {
  if (!imp?.para || imp.folder.length === 0) return null;
  return { category: 'resources', label: imp.folder.at(-1)! };
}
